import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../../src/canonical/index.js';
import { createAuditObserver, measurePayload, type AuditLogLine } from '../../../src/interceptors/builtin/audit-observer.js';
import { apply, ctxOf, depsOf } from './_content-ctx.js';

const payload = { name: 'read_file', arguments: { path: '/workspace/src/index.ts', head: 40 } };

describe('audit-observer', () => {
  it('measures size and shape without blocking', async () => {
    const obs = createAuditObserver({ name: 'audit', config: undefined, declaration: {}, deps: depsOf() });
    const out = await obs.run(payload, ctxOf('tools/call', 'request'));
    expect(out).toEqual({
      observed: true,
      metrics: { payloadBytes: canonicalBytes(payload).length, keys: 4, depth: 2, strings: 2 },
      info: { event: 'tools/call' },
    });
  });

  it('writes one structured log line per message in commit, never the payload', async () => {
    const lines: AuditLogLine[] = [];
    const deps = { ...depsOf(), log: (l: AuditLogLine) => lines.push(l) };
    const obs = createAuditObserver({ name: 'audit', config: undefined, declaration: {}, deps });
    const ctx = ctxOf('tools/call', 'request', { principal: 'alice', sessionId: 's1', server: 'filesystem', traceId: 't-1' });
    await obs.run(payload, ctx);
    expect(lines).toHaveLength(0); // run is pure: replay never logs
    await apply(obs, payload, ctx);
    expect(lines).toEqual([
      {
        time: ctx.time,
        interceptor: 'audit',
        event: 'tools/call',
        phase: 'request',
        direction: 'sending',
        principal: 'alice',
        session: 's1',
        trace: 't-1',
        server: 'filesystem',
        metrics: measurePayload(payload),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('/workspace');
  });

  it('never throws: a failing sink or a non-JSON payload is absorbed', async () => {
    const deps = { ...depsOf(), log: () => { throw new Error('disk full'); } };
    const obs = createAuditObserver({ name: 'audit', config: undefined, declaration: {}, deps });
    const ctx = ctxOf('resources/read', 'response');
    await expect(apply(obs, { contents: [] }, ctx)).resolves.toBeDefined();
    expect(measurePayload({ n: Number.NaN })).toEqual({ keys: 1, depth: 1, strings: 0 });
    expect(measurePayload(undefined)).toEqual({ keys: 0, depth: 0, strings: 0, payloadBytes: 0 });
  });

  it('is deterministic and hooks every event in both phases', async () => {
    const obs = createAuditObserver({ name: 'audit', config: undefined, declaration: {}, deps: depsOf() });
    const ctx = ctxOf('sampling/createMessage', 'response');
    expect(await obs.run(structuredClone(payload), ctx)).toEqual(await obs.run(payload, ctx));
    expect(obs.descriptor).toMatchObject({
      type: 'observability',
      hooks: [{ events: ['*'], phase: 'request' }, { events: ['*'], phase: 'response' }],
    });
    expect(() => createAuditObserver({ name: 'a', config: { verbose: true }, declaration: {}, deps: depsOf() })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG' }),
    );
  });
});
