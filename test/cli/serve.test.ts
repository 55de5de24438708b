// `vouch serve` as a user runs it: first run creates keys and the database, one ready line with
// the URL and key id, and SIGTERM shuts down cleanly (in-flight decisions finish, log is clean).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/vouch.js', import.meta.url).pathname;

describe('vouch serve', () => {
  it('starts on first run, answers, and shuts down gracefully on SIGTERM', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-serve-')), 'data');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 20_000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /vouch ready on (http:\/\/127\.0\.0\.1:\d+)\s+key ([0-9a-f]{8})/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stderr).toMatch(/development mode/);
    const send = () =>
      fetch(`${url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } }) });
    expect((await send()).status).toBe(200);
    // Decisions in flight when SIGTERM lands still finish (the batch in flight is completed).
    const inflight = Array.from({ length: 20 }, () => send().then((r) => r.status, () => 0));
    await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    const statuses = await Promise.all(inflight);
    const answered = statuses.filter((s) => s === 200).length;
    const verify = spawnSync(process.execPath, [BIN, 'log', 'verify', '--data', data, '--json'], { encoding: 'utf8' });
    expect(verify.status).toBe(0);
    const report = JSON.parse(verify.stdout);
    // one policy entry, the first decision, and every decision that was answered 200
    expect(report.logs[0].entries).toBeGreaterThanOrEqual(2 + answered);
    expect(report.logs[0].findings).toEqual([]);
  }, 60_000);
});
