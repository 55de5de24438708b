// The remote claims enricher (examples/claims-enricher) driven by real MCP clients over HTTP on
// 127.0.0.1: the SDK v2 and v1 clients read its declaration (an enricher under the vouch _meta key),
// and vouch's own remote client invokes it in both MCP eras; the answer is the result given plus
// one model-visible block and the claims record, with the verdicts the checker gives.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaims, parseEvidence, renderClaims } from '../../src/enrich/claims.js';
import { invokeInterceptor } from '../../src/interceptors/invoke.js';
import { connectRemoteInterceptors } from '../../src/interceptors/remote.js';
import type { RemoteEra } from '../../src/policy/index.js';
import { startClaimsEnricher, type RunningEnricher } from '../../examples/claims-enricher/server.js';
import { CTX } from '../interceptors/chain-kit.js';

const EVIDENCE = fileURLToPath(new URL('../../examples/claims-enricher/evidence.json', import.meta.url));
const MAIN = fileURLToPath(new URL('../../examples/claims-enricher/main.ts', import.meta.url));
const evidence = parseEvidence(readFileSync(EVIDENCE), 'evidence.json');
const anyResult = z.looseObject({});
const TEXT = 'ACME reported revenue of $4.2 billion in 2025. The CEO of ACME is John Smith. Globex shipped 300 anvils.';
const RESULT = { content: [{ type: 'text', text: TEXT }], _meta: { 'other/key': 1 } };

let srv: RunningEnricher;
beforeAll(async () => {
  srv = await startClaimsEnricher(evidence, { serverName: 'acme-facts' });
});
afterAll(() => srv.stop());

const DECLARATION = {
  name: 'claims-enricher',
  type: 'mutation',
  hooks: [{ events: ['tools/call'], phase: 'response' }],
  description: expect.any(String),
  _meta: { 'io.vouch/role': 'enricher' },
};

describe('remote claims enricher', () => {
  it('declares one response-phase mutation narrowed to an enricher by _meta, to SDK v2 (2026) and v1 (2025) clients', async () => {
    const v2 = new ClientV2({ name: 'test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await v2.connect(new TransportV2(new URL(srv.url)));
    // The 2026 answer also carries the SDK's own _meta (server info): the interceptors are the point.
    expect((await v2.request({ method: 'interceptors/list', params: {} }, anyResult)).interceptors).toEqual([DECLARATION]);
    await v2.close();
    const v1 = new ClientV1({ name: 'test', version: '1' });
    await v1.connect(new TransportV1(new URL(srv.url)));
    expect((await v1.request({ method: 'interceptors/list', params: {} }, anyResult)).interceptors).toEqual([DECLARATION]);
    await v1.close();
  });

  for (const era of ['legacy', '2026-07-28', 'auto'] as RemoteEra[]) {
    it(`answers vouch's remote client (era ${era}) with the result plus the verdict block and the record, nothing else changed`, async () => {
      const remote = await connectRemoteInterceptors({ url: srv.url, era });
      try {
        const [enricher] = remote.interceptors;
        const out = await invokeInterceptor(enricher, { event: 'tools/call', phase: 'response', payload: RESULT }, CTX);
        const record = { ...checkClaims(TEXT, evidence), checker: 'remote:acme-facts' };
        expect(record.claims.map((c) => c.verdict)).toEqual(['supported', 'contradicted', 'unverified']);
        expect(record.score).toBe(0.5);
        expect(out).toEqual({
          interceptor: 'claims-enricher',
          type: 'mutation',
          phase: 'response',
          modified: true,
          payload: {
            content: [RESULT.content[0], { type: 'text', text: renderClaims(record), annotations: { audience: ['assistant'] } }],
            _meta: { 'other/key': 1, 'io.vouch/enrichment': record },
          },
        });
        expect((out as { payload: { content: { text: string }[] } }).payload.content[1].text).toContain('Correction: "ACME\'s CEO is Jane Doe (since March 2023)." (source: ACME investor relations, leadership page)');
      } finally {
        await remote.close();
      }
    });
  }

  it('passes a request, another event, or a result without content on unmodified; refuses a name it does not host', async () => {
    const remote = await connectRemoteInterceptors({ url: srv.url });
    try {
      const [enricher] = remote.interceptors;
      const request = { name: 'echo', arguments: { text: TEXT } };
      expect(await invokeInterceptor(enricher, { event: 'tools/call', phase: 'request', payload: request }, CTX)).toMatchObject({ modified: false, payload: request });
      expect(await invokeInterceptor(enricher, { event: 'resources/read', phase: 'response', payload: RESULT }, CTX)).toMatchObject({ modified: false, payload: RESULT });
      expect(await invokeInterceptor(enricher, { event: 'tools/call', phase: 'response', payload: { structuredContent: { a: 1 } } }, CTX)).toMatchObject({ modified: false });
    } finally {
      await remote.close();
    }
    const v2 = new ClientV2({ name: 'test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await v2.connect(new TransportV2(new URL(srv.url)));
    await expect(v2.request({ method: 'interceptor/invoke', params: { name: 'nope', event: 'tools/call', phase: 'response', payload: RESULT } }, anyResult)).rejects.toThrow(/unknown interceptor nope/);
    await v2.close();
  });

  it('the command: refuses a bad evidence file with ERR_CONFIG and exit 3; serves a good one on the printed endpoint', async () => {
    const bad = spawn(process.execPath, ['--import', 'tsx', MAIN, '--evidence', fileURLToPath(new URL('../../package.json', import.meta.url))], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr.on('data', (d) => (err += d));
    const [code] = await once(bad, 'exit');
    expect(code).toBe(3);
    expect(err).toMatch(/^claims-enricher: ERR_CONFIG: evidence file package\.json: \/name unknown key: remove it/);

    const good = spawn(process.execPath, ['--import', 'tsx', MAIN, '--evidence', EVIDENCE, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        good.stdout.on('data', (d) => {
          out += d;
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
          if (m) resolve(m[1]);
        });
        good.once('exit', () => reject(new Error(`exited: ${out}`)));
      });
      expect(out).toContain(`5 facts from ${EVIDENCE} (${evidence.checker})`);
      const remote = await connectRemoteInterceptors({ url });
      expect(remote.interceptors.map((i) => i.descriptor.name)).toEqual(['claims-enricher']);
      await remote.close();
    } finally {
      good.kill('SIGTERM');
      await once(good, 'exit');
    }
  }, 90_000); // two tsx start-ups: 15 s measured on the shared 2-core machine
});
