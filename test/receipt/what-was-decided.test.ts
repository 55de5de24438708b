// A receipt says what was decided, from the signed entry alone: `vouch verify` prints
// "tools/call echo by alice at <time>: allow" (text and --json), names the resource URI after
// redaction, never an argument, and escapes a caller-chosen name before it reaches a terminal.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { decide, type ActivePolicy } from '../../src/decide/index.js';
import { recordExecution } from '../../src/execution/index.js';
import { formatVkey } from '../../src/log/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { deny, mutator, validator } from '../interceptors/chain-kit.js';
import { EMPTY_POLICY, keys, testLog } from '../execution/_log.js';

const TIME = '2026-12-01T10:00:00Z';
const log = testLog();
afterAll(() => log.close());
const dir = mkdtempSync(join(tmpdir(), 'vouch-what-'));
const vkeys = join(dir, 'vkeys.txt');
writeFileSync(vkeys, keys.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n') + '\n');
let n = 0;

async function verify(receipt: Receipt, ...more: string[]): Promise<{ code: number; out: string }> {
  const p = join(dir, `r${n++}.json`);
  writeFileSync(p, JSON.stringify(receipt));
  const out: string[] = [];
  const code = await main(['verify', p, '--key', vkeys, ...more], { out: (l) => out.push(l), err: (l) => out.push(l) });
  return { code, out: out.join('\n') };
}

const entryOf = (r: Receipt) => JSON.parse(utf8.decode(fromBase64(r.entry))) as Record<string, unknown>;
const ctx = { time: TIME, tenant: 'acme', principal: 'alice', sessionId: 's', traceId: 't' };
const call = (payload: unknown, policy: ActivePolicy = EMPTY_POLICY, event = 'tools/call') => decide({ event, phase: 'request', payload, context: ctx }, { policy, log });

describe('what a receipt says was decided', () => {
  it('prints event, tool name, principal, time and effect; --json carries the same fields', async () => {
    const d = await call({ name: 'echo', arguments: { text: 'the-argument-value' } });
    const e = entryOf(d.receipt);
    expect(e.target).toBe('echo');
    // Arguments stay digests: the value is nowhere in the signed entry.
    expect(JSON.stringify(e)).not.toContain('the-argument-value');
    const text = await verify(d.receipt);
    expect(text.code).toBe(0);
    expect(text.out).toContain('  tools/call echo by alice at 2026-12-01T10:00:00Z: allow');
    const json = await verify(d.receipt, '--json');
    const v = JSON.parse(json.out);
    expect(v.entry).toMatchObject({ type: 'decision', seq: d.appended.seq, event: 'tools/call', target: 'echo', principal: 'alice', time: TIME, effect: 'allow', phase: 'request', text: 'tools/call echo by alice at 2026-12-01T10:00:00Z: allow' });
  });

  it('names a prompt and a resource, the URI as authorized (after a redactor)', async () => {
    expect(entryOf((await call({ name: 'simple_prompt', arguments: {} }, EMPTY_POLICY, 'prompts/get')).receipt).target).toBe('simple_prompt');
    const redactor = mutator('redact', (p) => ({ modified: true, payload: { ...(p as object), uri: String((p as { uri: string }).uri).replace(/token=[^&]+/, 'token=[SECRET_REDACTED]') } }), { events: ['resources/read'] });
    const d = await call({ uri: 'https://files.example/a?token=sk-live-123' }, { ...EMPTY_POLICY, interceptors: [redactor] }, 'resources/read');
    const e = entryOf(d.receipt);
    expect(e.target).toBe('https://files.example/a?token=[SECRET_REDACTED]');
    expect(JSON.stringify(e)).not.toContain('sk-live-123');
    expect((await verify(d.receipt)).out).toContain('resources/read https://files.example/a?token=[SECRET_REDACTED] by alice at 2026-12-01T10:00:00Z: allow');
  });

  it('a deny names the target when every redactor ran and left it; not when one did not run', async () => {
    const keep = mutator('noop', (p) => ({ modified: false, payload: p }));
    const no = validator('authz', () => deny('not this tool'));
    const denied = await call({ name: 'dangerous_tool', arguments: {} }, { ...EMPTY_POLICY, interceptors: [keep, no] });
    expect(denied.effect).toBe('deny');
    expect(entryOf(denied.receipt).target).toBe('dangerous_tool');
    expect((await verify(denied.receipt)).out).toContain('tools/call dangerous_tool by alice at 2026-12-01T10:00:00Z: deny');
    // Refused before the redactor ran (a guard): the URI might have held what it hides.
    const redactor = mutator('redact', (p) => ({ modified: true, payload: p }), { events: ['resources/read'] });
    const guarded = await decide({ event: 'resources/read', phase: 'request', payload: { uri: 'https://x.example/?token=sk-live-456' }, context: ctx, guards: [{ name: 'g', record: {}, deny: 'no' }] }, { policy: { ...EMPTY_POLICY, interceptors: [redactor] }, log });
    expect(guarded.effect).toBe('deny');
    const g = entryOf(guarded.receipt);
    expect(g.target).toBeUndefined();
    expect(JSON.stringify(g)).not.toContain('sk-live-456');
    expect((await verify(guarded.receipt)).out).toContain('  resources/read by alice at 2026-12-01T10:00:00Z: deny');
  });

  it('escapes control characters of a caller-chosen name and bounds its length', async () => {
    const d = await call({ name: 'evil\u001b[2J\nVALID', arguments: {} });
    const out = (await verify(d.receipt)).out;
    expect(out).not.toContain('\u001b');
    expect(out).toContain('tools/call evil\\u001b[2J\\u000aVALID by alice');
    const long = await call({ name: 'x'.repeat(5000), arguments: {} });
    expect(String(entryOf(long.receipt).target)).toBe('x'.repeat(512) + '\u2026');
  });

  it('an execution receipt names the target, its authorization, drift and flags', async () => {
    const d = await call({ name: 'send_email', arguments: { to: 'a@example.test' } });
    const x = await recordExecution({ log, authorization: d.appended.seq, executed: { name: 'send_email', arguments: { to: 'm@evil.test' } }, time: TIME, tenant: 'acme', principal: 'alice' });
    const out = (await verify(x.receipt)).out;
    expect(out).toContain(`executed tools/call send_email by alice at 2026-12-01T10:00:00Z, authorized by #${d.appended.seq}: drift critical [drift-critical]`);
    const u = await recordExecution({ log, authorization: null, executed: {}, time: TIME, tenant: 'acme', principal: 'bob', event: 'tools/call' });
    expect((await verify(u.receipt)).out).toContain('executed tools/call by bob at 2026-12-01T10:00:00Z, unauthorized: drift none [unauthorized]');
  });

  it('says which MCP era the decision came over and the client as it claimed to be (issue 36), escaped', async () => {
    const over = (protocolVersion: string, clientInfo?: { name: string; version: string }) =>
      decide({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, context: { ...ctx, protocolVersion }, ...(clientInfo && { extra: { clientInfo } }) }, { policy: EMPTY_POLICY, log });
    const modern = await over('2026-07-28', { name: 'claude-code\u001b[2J', version: '2.4.0' });
    const text = await verify(modern.receipt);
    expect(text.out).toContain('  tools/call echo by alice at 2026-12-01T10:00:00Z over MCP 2026-07-28, client "claude-code\\u001b[2J" 2.4.0 (self-reported): allow');
    const json = JSON.parse((await verify(modern.receipt, '--json')).out);
    expect(json.entry).toMatchObject({ protocolVersion: '2026-07-28', clientInfo: { name: 'claude-code\u001b[2J', version: '2.4.0' } });
    expect((await verify((await over('2025-11-25')).receipt)).out).toContain('tools/call echo by alice at 2026-12-01T10:00:00Z over MCP 2025-11-25: allow');
  });

  it('an invalid receipt still shows the claim, marked not proven', async () => {
    const d = await call({ name: 'echo', arguments: {} });
    const bad = { ...d.receipt, leafHash: '00'.repeat(32) };
    const r = await verify(bad);
    expect(r.code).toBe(1);
    expect(r.out).toContain('tools/call echo by alice at 2026-12-01T10:00:00Z: allow  (NOT PROVEN: see the failed checks)');
  });
});
