// Attacks on declarations and compat skipping: a caller choosing an old protocol version to dodge
// an authorizer, a junk protocol version, a remote server listing a malformed declaration, and a
// config that does not fit a built-in's schema (at load on Node, at build time for the Worker).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderWorkerConfig } from '../../scripts/build-worker-config.js';
import { digestJson } from '../../src/canonical/index.js';
import { decide, type ActivePolicy } from '../../src/decide/index.js';
import { executeChain } from '../../src/interceptors/chain.js';
import type { Interceptor } from '../../src/interceptors/types.js';
import { Appender } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';
import { testServer } from '../http/_server.js';
import { allow, CTX, deny, validator } from '../interceptors/chain-kit.js';

const CALL = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: {} } };
const keys = testKeys();

function policyOf(interceptors: Interceptor[]): ActivePolicy {
  return { interceptors, chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {} };
}

describe('compat skipping cannot open a hole', () => {
  it('a caller announcing an old protocol version skips a narrowed authorizer, and is then denied as uncovered', async () => {
    const log = Appender.open({ origin: 'test.vouch/sec-compat', storage: openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-sec-compat-')), 'log.db')), signers: keys.signers });
    const authz = Object.assign(validator('authz', allow, { compat: { minProtocol: '2025-06-18' } }), { authorizes: true });
    const out = await decide({ ...CALL, context: { ...CTX, protocolVersion: '2024-11-05' } }, { policy: policyOf([authz]), log });
    expect(out.effect).toBe('deny');
    expect(out.chain.abortedAt?.reason).toMatch(/no authorization interceptor covers/);
    await log.close();
  });

  it('a protocol version that is not YYYY-MM-DD skips nothing (a range cannot place it)', async () => {
    const guard = validator('guard', () => deny('blocked'), { compat: { minProtocol: '2025-06-18' } });
    for (const v of ['0', 'DRAFT-2026', '', '2025-6-18', '9999-99-99x']) {
      const run = await executeChain([guard], CALL, { ...CTX, protocolVersion: v });
      expect(run.result.status, v).toBe('validation_failed');
    }
  });

  it('POST /mcp with an unsupported MCP-Protocol-Version is refused by the SDK transport before any decision', async () => {
    const server = await testServer();
    try {
      const body = { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { ...CALL, context: { sessionId: 's1' } } };
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '1999-01-01' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
    } finally {
      await server.close();
    }
  });
});

describe('a config that does not fit a built-in schema never runs', () => {
  it('the Worker build refuses it (no config.generated.json for it), every bad field by path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-sec-wcfg-'));
    const file = join(dir, 'vouch.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        interceptors: [
          { name: 'pii', use: 'pii-redactor', config: { kinds: ['iban', 'ssn'] } },
          { name: 'llm', use: 'llm-guard', config: { denySensitive: 'no', extra: true } },
        ],
        uncovered: [{ events: ['*'], phase: 'both' }],
      }),
    );
    const err = await renderWorkerConfig(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'ERR_CONFIG' });
    expect((err as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(
      ['/interceptors/0/config/kinds/1', '/interceptors/1/config/denySensitive', '/interceptors/1/config/extra'].sort(),
    );
  });
});
