// `vouch log tail --follow --json` as a SIEM pipeline runs it: a real child process following the
// SQLite log of a real server while decisions are appended; every entry once, in seq order, byte
// for byte as signed; SIGTERM and SIGINT end it cleanly (exit 0).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8 } from '../../src/canonical/index.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { BIN, ROOT } from './_serve.js';

let s: RunningServer;
let data: string;
const authorizeTool = (name: string, args: Record<string, unknown> = {}) =>
  fetch(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name, arguments: args } }) }).then((r) => r.json() as Promise<{ effect: string; seq: number }>);
const authorize = (n: number) => authorizeTool('lookup', { n });

function follow(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'log', 'tail', '--data', data, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lines = () => out.split('\n').filter((l) => l.length > 0);
  return {
    lines,
    err: () => err,
    exited,
    async waitLines(n: number, ms = 20_000) {
      const end = Date.now() + ms;
      while (lines().length < n) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`have ${lines().length} of ${n} lines; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return lines();
    },
    kill: (sig: NodeJS.Signals) => child.kill(sig),
    /** The follower says on stderr that it is following (signal handlers installed). */
    async started(ms = 20_000) {
      const end = Date.now() + ms;
      while (!/following/.test(err)) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`not following; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-tail-'));
  data = join(dir, 'data');
  s = await startServer({ data, port: 0 });
  for (let i = 0; i < 3; i++) expect((await authorize(i)).seq).toBeGreaterThan(0);
});
afterAll(async () => {
  await s?.close();
});

describe('vouch log tail --follow --json', () => {
  it('prints what is there, then each entry as it is appended, in order, once, as signed; SIGTERM exits 0', async () => {
    const f = follow(['--follow', '--json', '-n', '1000', '--interval', '20']);
    const before = s.dataDir.log('default').store.size();
    await f.waitLines(before);
    // Appended while following: one at a time and a concurrent burst (group commit batches).
    for (let i = 0; i < 3; i++) await authorize(100 + i);
    await Promise.all(Array.from({ length: 20 }, (_, i) => authorize(200 + i)));
    const total = s.dataDir.log('default').store.size();
    expect(total).toBe(before + 23);
    const got = await f.waitLines(total);
    f.kill('SIGTERM');
    expect(await f.exited).toEqual({ code: 0, signal: null });
    expect(f.lines().length).toBe(total); // nothing twice
    const store = s.dataDir.log('default').store;
    got.forEach((line, i) => {
      const e = JSON.parse(line);
      expect(e.seq).toBe(i);
      expect(line).toBe(utf8.decode(store.entry(i)!.bytes)); // the signed bytes, one JSON object per line
    });
    expect(f.err()).toMatch(/^vouch log tail: following every tenant log in .* \(SIGINT\/SIGTERM stops\)\n$/); // stdout holds entries only
  }, 60_000);

  it('-n 0 prints only new entries; SIGINT exits 0', async () => {
    const old = s.dataDir.log('default').store.size();
    const f = follow(['-f', '--json', '-n', '0', '--interval', '20']);
    // Append until the follower (starting up) prints: none of the entries before it started appear.
    const seqs: number[] = [];
    while (f.lines().length === 0) {
      seqs.push((await authorize(300 + seqs.length)).seq);
      await new Promise((r) => setTimeout(r, 200));
      if (seqs.length > 100) throw new Error(`follower printed nothing; stderr: ${f.err()}`);
    }
    const first = JSON.parse(f.lines()[0]).seq;
    expect(first).toBeGreaterThanOrEqual(old);
    expect(seqs).toContain(first);
    f.kill('SIGINT');
    expect(await f.exited).toEqual({ code: 0, signal: null });
    expect(f.lines().map((l) => JSON.parse(l).seq)).toEqual(seqs.filter((q) => q >= first));
  }, 60_000);

  it('a tenant log that does not exist yet is waited for, not an error', async () => {
    const f = follow(['--follow', '--json', '--tenant', 'later', '--interval', '20']);
    await f.started();
    await new Promise((r) => setTimeout(r, 200));
    f.kill('SIGTERM');
    expect(await f.exited).toEqual({ code: 0, signal: null });
    expect(f.lines()).toEqual([]);
  }, 60_000);
});

describe('vouch log tail (text)', () => {
  const tail = (...args: string[]) => spawnSync(process.execPath, [BIN, 'log', 'tail', '--data', data, ...args], { cwd: ROOT, encoding: 'utf8' });
  const lineOf = (out: string, seq: number) => out.split('\n').find((l) => l.includes(`  #${seq}  `));

  it('names the tool each decision is about, and why a deny denied', async () => {
    const allowed = await authorizeTool('echo', { text: 'hi' });
    const denied = await authorizeTool('dangerous_tool');
    expect([allowed.effect, denied.effect]).toEqual(['allow', 'deny']);
    const entry = JSON.parse(utf8.decode(s.dataDir.log('default').store.entry(denied.seq)!.bytes));
    const r = tail('-n', '50');
    expect(r.status).toBe(0);
    const deny = lineOf(r.stdout, denied.seq)!;
    expect(deny).toMatch(/^default {2}#\d+ {2}\S+ {2}decision {2}tools\/call {2}dangerous_tool {2}deny {2}\S+/);
    expect(deny).toContain(`${entry.decision.abortedAt.interceptor}: ${entry.decision.abortedAt.reason}`);
    const allow = lineOf(r.stdout, allowed.seq)!;
    expect(allow).toMatch(/ {2}tools\/call {2}echo {2}allow {2}/);
    expect(allow).not.toMatch(/reason|: denied/);
  }, 30_000);

  it('one line per entry whatever a tool name holds: control characters are shown escaped, never written to the terminal', async () => {
    const evil = await authorizeTool('x\n#999  2026-01-01  decision  forged\u001b[2J');
    const r = tail('-n', '50');
    const lines = r.stdout.split('\n').filter((l) => l.length > 0);
    expect(r.stdout).not.toMatch(/\u001b/);
    expect(lines.filter((l) => l.includes('forged'))).toHaveLength(1);
    expect(lineOf(r.stdout, evil.seq)).toContain('forged');
  }, 30_000);
});
