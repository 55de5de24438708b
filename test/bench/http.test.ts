// CI's smoke of the HTTP bench (bench/http.bench.ts) at toy size: every line is measured and
// reported with its baseline, no call fails, and the 2026 line sends what the SDK v2 client
// sends (its bytes captured here from the real client), so the bench measures the wire clients use.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { body2026, CLIENT_2026, HEADERS_2026, run, TOY } from '../../bench/http.bench.js';

/** What the SDK v2 client, pinned to 2026-07-28, sends for one executeChain (after its server/discover). */
async function sdkRequest(params: Record<string, unknown>): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ headers: req.headers, body });
    const msg = JSON.parse(body);
    const result =
      msg.method === 'server/discover'
        ? { supportedVersions: ['2026-07-28'], capabilities: {}, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'capture', version: '1' } } }
        : { resultType: 'complete' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const client = new Client({ ...CLIENT_2026 }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)));
    await client.request({ method: 'interceptor/executeChain', params }, z.looseObject({}));
    await client.close();
  } finally {
    server.close();
  }
  expect(seen.map((s) => JSON.parse(s.body).method)).toEqual(['server/discover', 'interceptor/executeChain']);
  return seen[1];
}

describe('bench/http.bench.ts', () => {
  it("the 2026 line's request is the SDK v2 client's: the same body bytes and the same MCP headers", async () => {
    const i = 0; // the SDK numbers its first request after the discovery probe 0, as the bench numbers decision 0
    const { _meta: _m, ...params } = JSON.parse(body2026(i)).params;
    const sent = await sdkRequest(params);
    expect(sent.body).toBe(body2026(i));
    const mcpHeaders = Object.fromEntries(Object.entries(sent.headers).filter(([k]) => k.startsWith('mcp-')));
    expect(mcpHeaders).toEqual(HEADERS_2026);
    expect(sent.headers['content-type']).toBe('application/json');
  });

  it('at toy size, every line is there with its baseline, the 2026 ones beside the 2025 ones, and no call failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-bench-smoke-'));
    try {
      const results = await run({ quick: true, repeat: 1, tempDir: () => mkdtempSync(join(dir, 'run-')), log: () => undefined }, TOY);
      const byName = new Map(results.map((r) => [r.name, r]));
      for (const c of [1, 16, 64]) {
        for (const era of ['executeChain', 'executeChain2026']) {
          const rate = byName.get(`${era}.c${c}`);
          expect(rate, `${era}.c${c}`).toMatchObject({ unit: 'decisions/s', baseline: expect.any(Number) });
          expect(rate!.note).toContain('; 0 errors');
          for (const k of ['p50', 'p99', 'cpu']) expect(byName.get(`${era}.c${c}.${k}`)?.value, `${era}.c${c}.${k}`).toBeGreaterThan(0);
        }
        // The 2026 latency and CPU lines are read against the 2025 line of the same run.
        for (const k of ['p50', 'p99', 'cpu']) {
          const line = byName.get(`executeChain2026.c${c}.${k}`)!;
          expect(line.baseline).toBe(byName.get(`executeChain.c${c}.${k}`)!.value);
          expect(line.ratio).toBeGreaterThan(0);
        }
      }
      expect(byName.get('durable.executeChain.c64')?.value).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
