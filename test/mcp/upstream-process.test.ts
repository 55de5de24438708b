// Issue 37 item 5: the gateway hung on disconnect when the upstream was started the README's way,
// through `npx`: the command the gateway starts is a wrapper whose child is the real server. On
// close the wrapper was signalled, the server it started lived on (here: server-everything with its
// simulated logging started, a timer that outlives stdin), holding the gateway's pipes open. The
// wrapper here is a real shell script that runs node as its child, as npx does. After close no
// process of the upstream may be left, and the real `vouch gateway` process exits.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openGateway } from '../../src/mcp/gateway-node.js';
import { EVERYTHING, ROOT, textOf, VOUCH_BIN } from './_gateway.js';

const WRAPPER = `#!/bin/sh
# npx-style: the server runs as this shell's child (not in its place), on this shell's stdin and stdout.
exec 3<&0
"$WRAP_NODE" "$WRAP_SERVER" stdio <&3 3<&- &
echo $! > "$WRAP_PIDFILE"
wait $!
`;

function setup(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const script = join(dir, 'npx-like.sh');
  writeFileSync(script, WRAPPER);
  const pidfile = join(dir, 'server.pid');
  const env = { WRAP_NODE: process.execPath, WRAP_SERVER: EVERYTHING, WRAP_PIDFILE: pidfile };
  return { dir, data: join(dir, 'data'), command: `sh '${script}'`, env, serverPid: () => Number(readFileSync(pidfile, 'utf8')) };
}

/**
 * Whether `pid` still runs. A process killed after its parent died waits as a zombie for init to
 * reap it, and this machine's init does not: a zombie (state Z or X in /proc) runs no more.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX] /s.test(stat);
  } catch {
    return true; // no /proc: signal 0 reached it
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe('an upstream started through a wrapper (npx) is stopped whole', () => {
  it('in process: closing the gateway leaves no process of the upstream, and does not wait out its timeouts', async () => {
    const w = setup('vouch-upstream-group-');
    const rt = await openGateway({ data: w.data, upstream: { command: w.command, env: w.env, stderr: 'ignore' }, thread: false });
    let server = 0;
    try {
      const [down, up] = InMemoryTransport.createLinkedPair();
      await rt.start(up);
      const client = new Client({ name: 'upstream-group', version: '1.0.0' });
      await client.connect(down);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toMatch(/^Echo: hi(\n|$)/); // then the example's provenance note
      // A timer in the server that outlives stdin: it keeps running when its input ends.
      await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      server = w.serverPid();
      expect(alive(server)).toBe(true);
      const t0 = Date.now();
      await client.close();
      await rt.close();
      expect(Date.now() - t0).toBeLessThan(3_500);
      expect(await gone(server, 1_000), `server ${server} still running`).toBe(true);
    } finally {
      if (server && alive(server)) process.kill(server, 'SIGKILL');
    }
  }, 60_000);

  it('the real `vouch gateway` over stdio exits on its own when its client hangs up, and its upstream with it', async () => {
    const w = setup('vouch-upstream-cli-');
    const env = Object.entries(w.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    // The client by hand (JSON-RPC lines), so the test sees how the gateway exits: by itself, or not at all.
    const gw = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', w.data, '--upstream-cmd', w.command, ...env, '--quiet'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
    const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => gw.once('exit', (code, signal) => resolve({ code, signal })));
    const answers = new Map<number, unknown>();
    let buf = '';
    gw.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (typeof m.id === 'number') answers.set(m.id, m);
      }
    });
    const send = (m: Record<string, unknown>) => gw.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    const answer = async (id: number) => {
      for (let i = 0; i < 600 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 50));
      return answers.get(id) as { result?: { content?: { text: string }[] } };
    };
    let server = 0;
    try {
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'by-hand', version: '1.0.0' } } });
      expect(await answer(1)).toHaveProperty('result');
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } });
      expect((await answer(2)).result?.content?.[0].text).toBe('Echo: hi');
      send({ id: 3, method: 'tools/call', params: { name: 'toggle-simulated-logging', arguments: {} } });
      expect(await answer(3)).toHaveProperty('result');
      server = w.serverPid();
      gw.stdin.end(); // the client hangs up
      const how = await Promise.race([exit, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      expect(how).toEqual({ code: 0, signal: null });
      expect(await gone(server, 1_000), `server ${server} still running`).toBe(true);
    } finally {
      if (gw.exitCode === null) gw.kill('SIGKILL');
      if (server && alive(server)) process.kill(server, 'SIGKILL');
    }
  }, 90_000);
});

describe('the helper spawns the upstream as its own process group', () => {
  it('a child that ignores SIGTERM is killed once the grace period is over, with its whole group', async () => {
    const { startUpstreamProcess } = await import('../../src/mcp/upstream-process.js');
    const dir = mkdtempSync(join(tmpdir(), 'vouch-upstream-stubborn-'));
    const pidfile = join(dir, 'child.pid');
    // A wrapper that ignores SIGTERM, and its child that does too: only SIGKILL to the group ends them.
    const script = join(dir, 'stubborn.sh');
    writeFileSync(script, `trap '' TERM\n"${process.execPath}" -e 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)' &\necho $! > '${pidfile}'\nwait $!\n`);
    const p = startUpstreamProcess({ command: 'sh', args: [script], env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' }, { graceMs: 300 });
    await p.started;
    for (let i = 0; i < 100 && !readFileSafe(pidfile); i++) await new Promise((r) => setTimeout(r, 20));
    const child = Number(readFileSafe(pidfile));
    expect(alive(child)).toBe(true);
    await p.stop();
    expect(await gone(child, 1_000)).toBe(true);
    expect(alive(p.child.pid!)).toBe(false);
  }, 30_000);
});

function readFileSafe(p: string): string {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return '';
  }
}
