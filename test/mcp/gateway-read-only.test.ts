// Issue 37: a real `vouch gateway` process over stdio holds its data directory, and an auditor
// attaches beside it: `vouch serve --read-only` serves the receipt of each call the gateway answered
// (where its `io.vouch/durable` record says), and it verifies with `vouch keys export`'s keys. The
// gateway's ready line names both commands.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { main } from '../../src/cli/main.js';
import { startReadOnlyServer, type ReadOnlyServer } from '../../src/http/node-read-only.js';
import { captureIo } from '../audit/_generate.js';
import { get } from '../http/_server.js';
import { everythingCmd, makeClient, makeWorkspace, ROOT, textOf, VOUCH_BIN, type Workspace } from './_gateway.js';

let ws: Workspace;
let reader: ReadOnlyServer | undefined;
let stderr = '';
const { client } = makeClient();

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-read-only-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--principal', 'alice'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr += d));
  await client.connect(transport);
}, 120_000);
afterAll(async () => {
  await reader?.close();
  await client.close().catch(() => undefined);
});

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, text: c.text(), err: c.errText() };
}

describe('serve --read-only beside a running gateway', () => {
  it("serves the receipt of the gateway's answer, verifying with the exported keys", async () => {
    const r = await client.callTool({ name: 'echo', arguments: { message: 'audited' } });
    expect(textOf(r)).toBe('Echo: audited');
    const meta = r._meta as Record<string, any>;
    const seq: number = (meta['io.vouch/durable'] ?? meta['io.vouch/receipt']).index;
    expect(Number.isSafeInteger(seq)).toBe(true);
    reader = await startReadOnlyServer({ data: ws.data, port: 0 });
    // The entry is served once a checkpoint the gateway signs covers it.
    let answer: { status: number; json: any } | undefined;
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((res) => setTimeout(res, 200))) {
      answer = await get(`${reader.url}/v1/entries/${seq}`);
      if (answer.status === 200 && answer.json.receipt) break;
    }
    expect(answer?.status).toBe(200);
    const keyFile = join(mkdtempSync(join(tmpdir(), 'vouch-gw-ro-keys-')), 'keys.vkeys');
    expect((await cli('keys', 'export', '--data', ws.data, '--format', 'note', '--out', keyFile)).code).toBe(0);
    const rf = join(tmpdir(), `vouch-gw-ro-receipt-${process.pid}.json`);
    writeFileSync(rf, JSON.stringify(answer!.json.receipt));
    const v = await cli('verify', rf, '--key', keyFile);
    expect(v.text).toMatch(/VALID/);
    expect(v.code).toBe(0);
    const ready = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'vouch gateway ready (stdio)');
    expect(ready).toMatchObject({ keys: expect.stringMatching(/^vouch keys export --data /), audit: expect.stringMatching(/^vouch serve --read-only --data /) });
    // The signing key by its JWKS kid (what `vouch keys export` and the console show), as `vouch serve` names it.
    const mldsa = JSON.parse((await cli('keys', 'export', '--data', ws.data)).text).keys.find((k: { alg?: string }) => k.alg === 'ML-DSA-65');
    expect(ready.kid).toBe(mldsa.kid);
  }, 90_000);
});
