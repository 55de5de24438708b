// `vouch gateway --wait durable` (issue 17): the real CLI process over stdio in front of
// server-everything. A forwarded call is answered once its decisions are committed; each answer
// carries, per decision, either its signed receipt or the committed entry with the place its
// receipt will be; a bad --wait value is a usage error (exit 2) before anything starts. With
// --attach-receipts every answer carries its signed receipts (issue 37).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { everythingCmd, makeClient, makeWorkspace, ROOT, textOf, VOUCH_BIN, type Workspace } from './_gateway.js';

let ws: Workspace;
const { client } = makeClient();

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-cli-wait-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--principal', 'alice', '--wait', 'durable', '--quiet'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  await client.connect(transport);
}, 120_000);
afterAll(async () => {
  await client.close().catch(() => undefined);
});

describe('vouch gateway --wait', () => {
  it('durable: the call is answered, with a signed receipt or the committed entry for its decision', async () => {
    const r = await client.callTool({ name: 'echo', arguments: { message: 'durable over stdio' } });
    expect(textOf(r)).toBe('Echo: durable over stdio');
    const meta = r._meta as Record<string, unknown>;
    const receipt = meta['io.vouch/receipt'] as { entry?: string } | undefined;
    const durable = meta['io.vouch/durable'] as { entry?: string; index?: number; receipt?: string } | undefined;
    expect(receipt ?? durable, `neither a receipt nor a durable entry in ${JSON.stringify(meta)}`).toBeDefined();
    if (!receipt) expect(durable).toMatchObject({ entry: expect.any(String), index: expect.any(Number), receipt: expect.stringMatching(/^\/v1\/entries\/\d+$/) });
  });

  it('is durable by default, and says so in its ready line', async () => {
    const { client: c } = makeClient();
    const own = makeWorkspace('vouch-gw-cli-default-'); // its own log: the other gateway holds ws's
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [VOUCH_BIN, 'gateway', '--data', own.data, '--config', own.config, '--upstream-cmd', everythingCmd(), '--principal', 'alice'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let err = '';
    t.stderr?.on('data', (d) => (err += d));
    await c.connect(t);
    try {
      const r = await c.callTool({ name: 'echo', arguments: { message: 'default' } });
      expect(textOf(r)).toBe('Echo: default');
      const ready = err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'vouch gateway ready (stdio)');
      expect(ready).toMatchObject({ wait: 'durable' });
      const meta = r._meta as Record<string, unknown>;
      expect(meta['io.vouch/receipt'] ?? meta['io.vouch/durable']).toBeDefined();
    } finally {
      await c.close().catch(() => undefined);
    }
  }, 120_000);

  it('--attach-receipts: every answer carries both signed receipts; the ready line and the answer name `vouch receipt` (issue 37)', async () => {
    const { client: c } = makeClient();
    const own = makeWorkspace('vouch-gw-cli-attach-');
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [VOUCH_BIN, 'gateway', '--data', own.data, '--config', own.config, '--upstream-cmd', everythingCmd(), '--attach-receipts'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let err = '';
    t.stderr?.on('data', (d) => (err += d));
    await c.connect(t);
    try {
      const r = await c.callTool({ name: 'echo', arguments: { message: 'attached' } });
      const meta = r._meta as Record<string, unknown>;
      expect(meta['io.vouch/durable']).toBeUndefined();
      expect(meta['io.vouch/receipt']).toMatchObject({ v: 1, index: meta['io.vouch/seq'] });
      expect(meta['io.vouch/response-receipt']).toMatchObject({ v: 1, index: meta['io.vouch/response-seq'] });
      expect(meta['io.vouch/receipt-command']).toBe(`vouch receipt ${meta['io.vouch/seq']} --data ${own.data} --tenant default`);
      const ready = err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'vouch gateway ready (stdio)');
      expect(ready).toMatchObject({ receipts: `vouch receipt SEQ --data ${own.data} --tenant default` });
    } finally {
      await c.close().catch(() => undefined);
    }
  }, 120_000);

  it('refuses a value other than signed or durable with a usage error (exit 2)', () => {
    const r = spawnSync(process.execPath, [VOUCH_BIN, 'gateway', '--data', ws.data, '--upstream-cmd', 'true', '--wait', 'eventually'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--wait takes "signed" or "durable"/);
  });
});
