// `vouch serve` as a user runs it: first run creates keys and the database, one ready line with
// the URL and key id, and SIGTERM shuts down cleanly (in-flight decisions finish, log is clean,
// a checkpoint over it published); idle checkpoints (issue 15 item 4) once per change.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { publishedCheckpointPath } from '../../src/http/log-lifecycle.js';
import { startServer } from '../../src/http/node-server.js';
import { openCheckpoint } from '../../src/log/index.js';
import { loadKeys } from '../../src/store/node.js';

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
    // Clean shutdown signed a checkpoint over everything committed and published it.
    const published = readFileSync(publishedCheckpointPath(data, 'default'), 'utf8');
    const cp = openCheckpoint(published, loadKeys(data, 'vouch.local/default').verifiers, { strict: true }); // the log's keys, under its origin
    expect(cp).toMatchObject({ origin: 'vouch.local/default', size: report.logs[0].entries });
    expect(toHex(cp.root)).toBe(report.logs[0].root);
    const line = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'checkpoint');
    // One short line names it (the note itself is in the file, and in the log at debug: test/cli/log-level.test.ts).
    expect(line).toMatchObject({ level: 'info', reason: 'shutdown', tenant: 'default', size: cp.size, root: toHex(cp.root), file: publishedCheckpointPath(data, 'default') });
  }, 60_000);

  it('signs and publishes a checkpoint after an idle interval, once per change', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-idle-')), 'data');
    const lines: Record<string, any>[] = [];
    const s = await startServer({ data, port: 0, idleCheckpointMs: 150, logLine: (l) => lines.push(l) });
    const checkpoints = () => lines.filter((l) => l.msg === 'checkpoint');
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ok()).toBe(true);
    };
    const send = () => fetch(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } }) });
    try {
      await send();
      const size1 = s.dataDir.log('default').appender.size;
      await until(() => checkpoints().length === 1);
      expect(checkpoints()[0]).toMatchObject({ reason: 'idle', tenant: 'default', size: size1 });
      // Idle and unchanged: nothing more is signed.
      await new Promise((r) => setTimeout(r, 600));
      expect(checkpoints().map((l) => [l.reason, l.size])).toEqual([["idle", size1]]);
      await send();
      await until(() => checkpoints().length === 2);
      expect(checkpoints()[1]).toMatchObject({ reason: 'idle', size: size1 + 1 });
      const note = readFileSync(publishedCheckpointPath(data, 'default'), 'utf8');
      expect(note).toBe(lines.filter((l) => l.msg === 'checkpoint note')[1].note); // at debug
      expect(openCheckpoint(note, s.dataDir.log('default').verifiers, { strict: true }).size).toBe(size1 + 1);
      expect((await (await fetch(`${s.url}/metrics`)).text())).toMatch(new RegExp(`^vouch_checkpoint_published_size\\{tenant="default"\\} ${size1 + 1}$`, 'm'));
    } finally {
      await s.close();
    }
    // ...and the shutdown one (same tree: nothing appended since) is published too.
    expect(checkpoints().at(-1)).toMatchObject({ reason: 'shutdown', size: checkpoints()[1].size });
  }, 30_000);
});
