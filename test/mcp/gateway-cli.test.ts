// The real `vouch gateway` process over stdio, the client being the SDK Client with
// StdioClientTransport: nothing but protocol on stdout, receipts that `vouch verify` accepts, an
// upstream crash survived, a clean exit when the client hangs up, and a log that verifies.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadKeys } from '../../src/store/node.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { everythingCmd, makeClient, makeWorkspace, ROOT, textOf, VOUCH_BIN, vouch, type Workspace } from './_gateway.js';

let ws: Workspace;
let transport: StdioClientTransport;
let stderr = '';
const clientErrors: Error[] = [];
const { client } = makeClient();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-cli-');
  transport = new StdioClientTransport({
    command: process.execPath,
    // --wait signed: every answer carries its receipt (the default, durable, attaches those that are ready).
    args: [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--principal', 'alice', '--wait', 'signed'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  (transport.stderr as PassThrough).on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  client.onerror = (e) => clientErrors.push(e);
  await client.connect(transport);
});
afterAll(async () => {
  await client.close().catch(() => undefined);
});

describe('vouch gateway (CLI process over stdio)', () => {
  let receipt: unknown;

  it('relays, filters and denies like the in-process gateway', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('get-env');
    const r = await client.callTool({ name: 'echo', arguments: { message: 'over stdio, mail me at bob@example.com' } });
    expect(textOf(r)).toBe('Echo: over stdio, mail me at [EMAIL_REDACTED]');
    receipt = r._meta!['io.vouch/receipt'];
    const e = await client.callTool({ name: 'get-env', arguments: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32001);
  });

  it('keeps stdout for the protocol: diagnostics are JSON lines on stderr', () => {
    expect(clientErrors).toEqual([]); // a stray stdout line would be a parse error here
    const lines = stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('vouch gateway ready (stdio)');
  });

  it('tells the operator on stderr what the upstream offers, what the policy hides, and the config to edit', async () => {
    for (let i = 0; i < 200 && !stderr.includes('to change what is hidden'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stderr).toMatch(/vouch gateway: upstream "everything" offers \d+ tools, \d+ prompts, \d+ resources/);
    expect(stderr).toMatch(/the policy hides \d+ of \d+ tools: .*get-env/);
    expect(stderr).toContain(`edit ${ws.config}`);
  });

  it('hands out receipts that verify offline, in-process and with `vouch verify`', () => {
    // The log's keys under the name its checkpoints are signed with: its origin (the default tenant's).
    const vkeys = loadKeys(ws.data, 'vouch.local/default').keys.map((k) => k.vkey).join('\n');
    const trust = parseTrust(vkeys);
    const report = verifyReceipt(receipt, { verifiers: verifiersFor(trust, (receipt as { checkpoint: string }).checkpoint) });
    expect(report.ok).toBe(true);
    expect(report.entry).toMatchObject({ principal: 'alice', server: 'everything', event: 'tools/call' });
    const receiptFile = join(ws.dir, 'receipt.json');
    const keyFile = join(ws.dir, 'keys.vkey');
    writeFileSync(receiptFile, JSON.stringify(receipt));
    writeFileSync(keyFile, vkeys + '\n');
    const v = vouch(['verify', receiptFile, '--key', keyFile]);
    expect(v.status).toBe(0);
  });

  it('survives its upstream being killed: clear errors, the process stays up', async () => {
    const ps = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(transport.pid)], { encoding: 'utf8' });
    const upstream = ps.split('\n').filter((l) => l.includes('server-everything')).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(upstream.length).toBe(1);
    process.kill(upstream[0], 'SIGKILL');
    await expect.poll(() => stderr.includes('"upstream closed"')).toBe(true);
    const e = await client.callTool({ name: 'echo', arguments: { message: 'anyone?' } }).catch((x: unknown) => x);
    expect((e as McpError).code).toBe(-32002);
    expect(alive(transport.pid!)).toBe(true);
    await expect(client.ping()).resolves.toBeDefined();
  });

  it('exits when the client hangs up, and its log verifies clean', async () => {
    const pid = transport.pid!;
    const t0 = performance.now();
    await client.close();
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    // It left on its own when stdin closed: the SDK would have sent SIGTERM only after 2 s.
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(stderr).toContain('vouch gateway shutting down');
    const r = vouch(['log', 'verify', '--data', ws.data]);
    expect(r.stdout).toContain('log verify: clean');
    expect(r.status).toBe(0);
    // And every decision replays to match in a fresh process (issue 35: no false mismatch).
    const replayed = vouch(['replay', '--data', ws.data]);
    expect(replayed.status, replayed.stdout + replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(/ 0 mismatch/);
    const tail = vouch(['log', 'tail', '--data', ws.data, '-n', '50', '--json']);
    const types = tail.stdout.trim().split('\n').map((l) => JSON.parse(l).type);
    expect(types).toEqual(expect.arrayContaining(['policy', 'decision', 'execution']));
  });
});
