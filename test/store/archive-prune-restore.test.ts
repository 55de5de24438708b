// A pruned log restored without its archive (docs/keeping-logs.md#restoring-a-pruned-log): the operator copied
// back the database but not DATA/archive/<tenant>/. Nothing is tampered with, so neither verify nor
// serve may read like tampering or like an empty log: both say the log is pruned below N, that its
// archive is missing at that path, and how to fix it (ERR_ARCHIVE_MISSING).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../cli/_serve.js';
import { runVouch } from '../helpers/cli.js';
import { flipEntryByte, openAsAttacker } from '../security/_file-attacker.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { makeLog } from './_archive-log.js';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

let pruned: string; // 600 entries, pruned below 512, archive in DATA/archive/default
let restored: string; // the database alone: the archive directory left behind

beforeAll(async () => {
  pruned = await makeLog(600, 'agent', tempDir('vouch-restore-'));
  expect((await runVouch('log', 'archive', '--data', pruned)).code).toBe(0);
  expect((await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default', '--json')).json).toMatchObject({ below: 512 });
  restored = restoredCopy();
}, 120_000);

/** A copy of the pruned data directory without its archive directory. */
function restoredCopy(): string {
  const d = tempDir('vouch-restore-db-');
  cpSync(pruned, d, { recursive: true });
  rmSync(join(d, 'archive'), { recursive: true });
  return d;
}

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('vouch log verify on a pruned log restored without its archive', () => {
  it('--json: one ERR_ARCHIVE_MISSING finding naming the watermark, the path and the fix; the entries checked, not 0', async () => {
    const v = await runVouch('log', 'verify', '--data', restored, '--json');
    expect(v.code).toBe(1);
    const log = v.json.logs[0];
    expect(log.findings).toHaveLength(1);
    expect(log.findings[0]).toMatchObject({ kind: 'archive', code: 'ERR_ARCHIVE_MISSING' });
    const msg: string = log.findings[0].message;
    expect(msg).toContain('pruned below seq 512');
    expect(msg).toContain(join(restored, 'archive', 'default'));
    expect(msg).toMatch(/restore the archive directory .* from the same backup/);
    expect(msg).toContain('or pass --archive DIR, the directory that holds default/');
    expect(log.findings.map((f: { code: string }) => f.code)).not.toContain('ERR_VERIFY_INDEX');
    // What was checked: the rows above the watermark; the pruned part is named as unchecked.
    expect(log.entries).toBe(600 - 512);
    expect(log.unchecked).toEqual({ below: 512, archive: join(restored, 'archive', 'default') });
  });

  it('text: says which entries were checked and that the pruned ones were not', async () => {
    const v = await runVouch('log', 'verify', '--data', restored);
    expect(v.code).toBe(1);
    expect(v.out).not.toMatch(/: 0 entries/);
    expect(v.out).toContain('88 entries checked (seq 512..599); entries below 512 not checked: their archive is missing');
    expect(v.out).toContain('[archive] the log is pruned below seq 512 and its archive at ');
  });

  it('--archive DIR pointing at the archive: clean again', async () => {
    const v = await runVouch('log', 'verify', '--data', restored, '--archive', join(pruned, 'archive'), '--json');
    expect(v.json.ok).toBe(true);
    expect(v.json.logs[0]).toMatchObject({ entries: 600 });
  });
});

describe('what is still checked on it (the rows above the watermark)', () => {
  it('an entry above the watermark edited: its finding too, beside the missing archive', async () => {
    const dir = restoredCopy();
    flipEntryByte(logPath(dir, 'default'), 550);
    const v = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(v.code).toBe(1);
    const findings: { code: string; seq?: number }[] = v.json.logs[0].findings;
    expect(findings[0].code).toBe('ERR_ARCHIVE_MISSING');
    expect(findings.some((f) => f.seq === 550)).toBe(true);
  });
});

describe('what is still checked on it (the kept tree)', () => {
  it('the kept node over the pruned entries edited: the signed checkpoints past the watermark no longer match', async () => {
    const dir = restoredCopy();
    const db = openAsAttacker(logPath(dir, 'default'));
    try {
      db.prepare('UPDATE nodes SET hash = ? WHERE level = 9 AND idx = 0').run(Buffer.alloc(32, 7)); // the subtree of entries 0..511
    } finally {
      db.close();
    }
    const v = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(v.code).toBe(1);
    const findings: { code: string; kind: string; message: string }[] = v.json.logs[0].findings;
    expect(findings[0].code).toBe('ERR_ARCHIVE_MISSING');
    expect(findings.some((f) => f.kind === 'checkpoint' && /checkpoint 600: stored root differs/.test(f.message))).toBe(true);
  });
});

describe('opening it (vouch serve, every reader)', () => {
  it('the store refuses at open with ERR_ARCHIVE_MISSING naming the watermark, the path and the fix', () => {
    expect(() => openSqliteStore(logPath(restored, 'default'), { readonly: true })).toThrow(
      expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING', message: expect.stringMatching(/pruned below seq 512 and its archive at .*archive\/default is missing.*restore the archive directory/) }),
    );
  });

  it('vouch serve fails closed at start with that coded message, no stack', () => {
    const dir = restoredCopy();
    const r = spawnSync(process.execPath, [BIN, 'serve', '--data', dir, '--port', '0'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`vouch serve: error ERR_ARCHIVE_MISSING: the log is pruned below seq 512 and its archive at ${join(dir, 'archive', 'default')} is missing`);
    expect(r.stderr).toContain('from the same backup as the database');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout).not.toContain('vouch ready');
  });
});
