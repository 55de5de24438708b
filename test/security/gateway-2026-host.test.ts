// DNS rebinding against `vouch gateway --listen` in the 2026-07-28 era (issue 36): a web page
// whose name now resolves to 127.0.0.1 posts to the listener under its own Host. The listener's
// Host check (what the 2025 sessions' transport does) must hold for 2026 requests too: refused
// 403 before any caller's gateway (an upstream connection) is opened or anything is decided.
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, makeWorkspace } from '../mcp/_gateway.js';

const ASKING = fileURLToPath(new URL('../mcp/fixtures/asking-server-2025.mjs', import.meta.url));
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

let rt: GatewayRuntime;
let listening: Listening;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-host-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
  listening = await listenGateway(rt, { port: 0 });
});
afterAll(async () => {
  await listening?.close();
  await closeReplayed(rt);
});

/** A POST as the page's browser sends it after the rebinding: its own Host, no Origin (same-origin to it). */
function post(host: string, body: object): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port: listening.port, path: '/mcp', method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

describe('gateway --listen: the Host check holds for 2026 requests (DNS rebinding)', () => {
  it('a 2026 request under a foreign Host is refused 403 before a gateway opens; under its own Host it is served', async () => {
    const before = (await entriesOf(rt)).length;
    const rebound = await post(`rebound.example:${listening.port}`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } });
    expect(rebound.status).toBe(403);
    expect(rt.sessions()).toHaveLength(0);
    expect((await entriesOf(rt)).length).toBe(before);
    const own = await post(`127.0.0.1:${listening.port}`, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } });
    expect(own.status).toBe(200);
  });
});
