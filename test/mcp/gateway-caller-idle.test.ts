// `vouch gateway --listen ... --caller-idle S` (issue 36): a 2026-07-28 caller never says it is
// done, so its upstream connection is given back S seconds after its last request. Two real gateway
// processes in front of server-everything, one with --caller-idle 1 and one with 30: after one
// call from the SDK v2 client pinned to 2026, /healthz counts the caller in both, then only in the
// second. A value that is not whole seconds in range, or the flag without --listen, is a usage error.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { everythingCmd, makeWorkspace, ROOT, VOUCH_BIN, vouch } from './_gateway.js';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
});

/** A `vouch gateway --listen 127.0.0.1:0` process; resolves with its /mcp URL once it prints it. */
async function gateway(idleSeconds: number): Promise<string> {
  const ws = makeWorkspace('vouch-gw-idle-');
  const c = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--listen', '127.0.0.1:0', '--caller-idle', String(idleSeconds), '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  let out = '';
  return new Promise((resolve, reject) => {
    c.stdout!.on('data', (d) => {
      out += d;
      const m = /vouch gateway on (http:\/\/\S+\/mcp)/.exec(out);
      if (m) resolve(m[1]);
    });
    c.stderr!.on('data', (d) => (out += d));
    c.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
  });
}

const callers = async (url: string) => ((await (await fetch(url.replace(/\/mcp$/, '/healthz'))).json()) as { callers2026: number }).callers2026;

async function oneCall(url: string): Promise<void> {
  const client = new Client({ name: 'idle-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  await client.close(); // says nothing to the gateway: 2026 has no session to end
}

describe('vouch gateway --caller-idle', () => {
  it("gives a 2026 caller's upstream connection back after S idle seconds, not the default's", async () => {
    const [short, long] = await Promise.all([gateway(1), gateway(30)]);
    await Promise.all([oneCall(short), oneCall(long)]);
    const called = Date.now();
    expect(await callers(long)).toBe(1);
    // Gone from the short one within a few seconds of its 1 s (the timer, then the upstream's close).
    let n = await callers(short);
    while (n > 0 && Date.now() - called < 15_000) {
      await new Promise((r) => setTimeout(r, 200));
      n = await callers(short);
    }
    expect(n).toBe(0);
    expect(await callers(long)).toBe(1);
  }, 120_000);

  it('refuses what is not whole seconds from 1 to 86400, and the flag without --listen (exit 2, in --help)', () => {
    for (const v of ['0', '1.5', 'abc', '86401', '']) {
      const r = vouch(['gateway', '--upstream-cmd', 'true', '--listen', '127.0.0.1:0', '--caller-idle', v]);
      expect(r.status, v).toBe(2);
      expect(r.stderr).toContain('--caller-idle takes whole seconds from 1 to 86400');
    }
    // A negative number reads as a flag: refused by the argument parser, in vouch's words.
    const negative = vouch(['gateway', '--upstream-cmd', 'true', '--listen', '127.0.0.1:0', '--caller-idle', '-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toContain('--caller-idle');
    const stdio = vouch(['gateway', '--upstream-cmd', 'true', '--caller-idle', '5']);
    expect(stdio.status).toBe(2);
    expect(stdio.stderr).toContain('--caller-idle applies to --listen only');
    expect(vouch(['gateway', '--help']).stdout).toMatch(/--caller-idle S +with --listen: seconds a 2026-07-28 caller's upstream connection/);
  }, 120_000); // nine CLI processes
});
