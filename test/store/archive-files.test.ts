// The archive's file-level attacker puts something other than a file where a tile or the checkpoint
// belongs: a dangling symlink, a symlink to a file elsewhere, a FIFO, a device, a directory. Each is
// the integrity alarm (the writer) or an archive finding (log verify, the background audit), named,
// and neither ever hangs, loops or reads without bound.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, openSync, closeSync, constants, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPath, openSqliteStore, syncArchive } from '../../src/store/node.js';
import { makeLog } from './_archive-log.js';
import { runVouch } from '../helpers/cli.js';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
const copyOf = (dir: string) => {
  const c = tempDir('vouch-archive-files-');
  cpSync(dir, c, { recursive: true });
  return c;
};
const at = (dir: string, rel: string) => join(dir, 'archive', 'default', rel);
const mkfifo = (path: string) => new Promise<void>((ok, no) => execFile('mkfifo', [path], (e) => (e ? no(e) : ok())));

/** Whatever blocked on opening the FIFO for reading is let go (a writer opens and closes it). */
function release(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader waiting: nothing to release
  }
}

/** syncArchive with a bound: a hang or a loop is this test's failure, not the suite's timeout. */
async function syncBounded(dir: string, ms = 5000): Promise<unknown> {
  const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<'hung'>((ok) => (timer = setTimeout(() => ok('hung'), ms)));
    const r = await Promise.race([syncArchive(join(dir, 'archive', 'default'), store).then((x) => x, (e: unknown) => e), hung]);
    clearTimeout(timer);
    return r;
  } finally {
    store.close();
  }
}

/** `vouch log verify --json` as a process (the compiled CLI), killed after `ms`: a read that blocks is a kill, not a hang. */
function verifyProcess(dir: string, ms = 20_000): Promise<{ code: number | null; killed: boolean; json: any; out: string }> {
  return new Promise((ok) => {
    execFile(process.execPath, ['bin/vouch.js', 'log', 'verify', '--data', dir, '--json'], { timeout: ms, maxBuffer: 64 << 20 }, (e, stdout, stderr) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      ok({ code: e ? ((e as { code?: number }).code ?? null) : 0, killed: Boolean(e && (e as { killed?: boolean }).killed), json, out: stdout + stderr });
    });
  });
}

let clean: string;
beforeAll(async () => {
  clean = await makeLog(600, 'agent', tempDir('vouch-archive-files-'));
  expect((await runVouch('log', 'archive', '--data', clean)).code).toBe(0);
}, 120_000);
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('the archive writer meets something other than a file', () => {
  const cases: [string, (path: string) => Promise<void> | void][] = [
    ['a dangling symlink', (p) => symlinkSync(join(tmpdir(), 'vouch-no-such-file'), p)],
    ['a symlink to a file with the same bytes elsewhere', (p) => symlinkSync(join(clean, 'archive', 'default', 'tile/0/001'), p)],
    ['a FIFO', (p) => mkfifo(p)],
    ['a directory', (p) => mkdirSync(p)],
  ];
  for (const [name, put] of cases) {
    it(`${name} at tile/0/001: ERR_ARCHIVE_MISMATCH naming it, never a hang or a loop`, async () => {
      const dir = copyOf(clean);
      unlinkSync(at(dir, 'checkpoint')); // so the writer compares every tile again
      rmSync(at(dir, 'tile/0/001'), { recursive: true });
      await put(at(dir, 'tile/0/001'));
      const r = await syncBounded(dir);
      release(at(dir, 'tile/0/001'));
      expect(r).not.toBe('hung');
      expect(r).toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringMatching(/tile\/0\/001.*not a regular file/) });
    });
  }

  it('a FIFO as the checkpoint: ERR_ARCHIVE_MISMATCH, never a hang', async () => {
    const dir = copyOf(clean);
    unlinkSync(at(dir, 'checkpoint'));
    await mkfifo(at(dir, 'checkpoint'));
    const r = await syncBounded(dir);
    release(at(dir, 'checkpoint'));
    expect(r).not.toBe('hung');
    expect(r).toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringMatching(/checkpoint.*not a regular file/) });
  });
});

describe('log verify meets something other than a file in the archive', () => {
  const cases: [string, string, (path: string) => Promise<void> | void][] = [
    ['a FIFO', 'tile/entries/000', (p) => mkfifo(p)],
    ['a symlink to /dev/zero (reads without end)', 'tile/0/001', (p) => symlinkSync('/dev/zero', p)],
    ['a symlink to a copy of the right bytes', 'tile/entries/001', (p) => symlinkSync(join(clean, 'archive', 'default', 'tile/entries/001'), p)],
    ['a FIFO as the checkpoint', 'checkpoint', (p) => mkfifo(p)],
  ];
  for (const [name, rel, put] of cases) {
    it(`${name} at ${rel}: an archive finding naming it, the process ends`, async () => {
      const dir = copyOf(clean);
      rmSync(at(dir, rel), { recursive: true });
      await put(at(dir, rel));
      const r = await verifyProcess(dir);
      expect(r.killed, r.out.slice(0, 500)).toBe(false);
      expect(r.code).toBe(1);
      const findings: { kind: string; message: string }[] = r.json.logs[0].findings;
      expect(findings.some((f) => f.kind === 'archive' && f.message.includes(`${rel}: not a regular file`)), JSON.stringify(findings).slice(0, 800)).toBe(true);
    }, 30_000);
  }

  it('a directory where a tile belongs: an archive finding naming it', async () => {
    const dir = copyOf(clean);
    rmSync(at(dir, 'tile/0/001'));
    mkdirSync(at(dir, 'tile/0/001'));
    const r = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(r.code).toBe(1);
    expect(r.json.logs[0].findings.some((f: { kind: string; message: string }) => f.kind === 'archive' && f.message.includes('tile/0/001: not a regular file'))).toBe(true);
    expect(readFileSync(at(clean, 'tile/0/001')).length).toBe(8192);
  });
});
