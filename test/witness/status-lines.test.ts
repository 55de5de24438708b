// A service's log lines about a witness over time (status-lines.ts): a witness polled every second
// while it is down says so once, again when the reason changes and as a reminder, and once when
// it cosigns again; the polls between are debug lines.
import { describe, expect, it } from 'vitest';
import { witnessStatusLines } from '../../src/witness/status-lines.js';

describe('witnessStatusLines', () => {
  it('down: one warn, then debug per poll, a warn reminder, a warn when the reason changes; back: one info', () => {
    const lines: Record<string, unknown>[] = [];
    let t = 1_000_000;
    const status = witnessStatusLines((l) => lines.push(l), { now: () => t, remindMs: 60_000 });
    const fail = (error: string) => status('default', { witness: 'w1', logSize: 9, cosignedSize: 4, ok: false, error });
    const ok = () => status('default', { witness: 'w1', logSize: 9, cosignedSize: 9, ok: true });
    ok(); // healthy: nothing said
    fail('connect ECONNREFUSED');
    for (let i = 0; i < 30; i++) ((t += 1000), fail('connect ECONNREFUSED'));
    t += 30_000; // 60 s after the first warn
    fail('connect ECONNREFUSED');
    t += 1000;
    fail('witness answered 403: ERR_VERIFY_NOTE');
    t += 1000;
    ok();
    ok();
    const said = lines.map((l) => [l.level, l.msg, l.failures]);
    expect(said.filter(([level]) => level !== 'debug')).toEqual([
      ['warn', 'witness did not cosign', undefined],
      ['warn', 'witness did not cosign', 32],
      ['warn', 'witness did not cosign', 33],
      ['info', 'witness cosigns again', 33],
    ]);
    expect(said.filter(([level]) => level === 'debug')).toHaveLength(30);
    expect(lines[31]).toMatchObject({ tenant: 'default', witness: 'w1', size: 9, cosigned: 4, since: new Date(1_000_000).toISOString() });
  });

  it('each witness of each tenant on its own', () => {
    const lines: Record<string, unknown>[] = [];
    const status = witnessStatusLines((l) => lines.push(l));
    for (const tenant of ['a', 'b']) for (const witness of ['w1', 'w2']) status(tenant, { witness, logSize: 2, cosignedSize: 0, ok: false, error: 'down' });
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(4);
  });
});
