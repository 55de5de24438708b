// vouch serve and the tile archive (issue 40): after commits the service archives its newest
// checkpoint and the tiles it completes; its background audit reads sealed history from the
// archive, so an attacker who edits an archived tile (not the database, not the keys) stops signing.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { openSqliteStore, logPath } from '../../src/store/node.js';
import { get, post } from '../http/_server.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog } from '../store/_archive-log.js';

const temps: string[] = [];
let original: string;
const decide = (url: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'vouch-archive-audit-'));
  temps.push(root);
  original = await makeLog(300, 'agent', join(root, 'data'));
  expect((await runVouch('log', 'archive', '--data', original)).code).toBe(0);
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function copy(): string {
  const root = mkdtempSync(join(tmpdir(), 'vouch-archive-audit-copy-'));
  temps.push(root);
  cpSync(original, join(root, 'data'), { recursive: true });
  return join(root, 'data');
}

async function metric(s: RunningServer, name: string): Promise<number | undefined> {
  const text = (await get(`${s.url}/metrics`)).json as string;
  const m = new RegExp(`^${name}\\{tenant="default"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

async function until(what: () => Promise<boolean>, ms = 45_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const archived = (data: string) => readFileSync(join(data, 'archive', 'default', 'checkpoint'), 'utf8');

describe('vouch serve with a tile archive', () => {
  it('a clean archive: audited through it, decisions go on, and they are archived after commit and at shutdown', async () => {
    const data = copy();
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0, auditPage: 64, auditDelayMs: 0, archiveDelayMs: 50 });
    try {
      await until(async () => (await metric(s, 'vouch_audit_complete')) === 1);
      expect(await metric(s, 'vouch_audit_failed')).toBe(0);
      for (let i = 0; i < 3; i++) expect((await decide(s.url)).status).toBe(200);
      // Archived in the background after the commit, not by the decision.
      await until(async () => Number(archived(data).split('\n')[1]) >= 303);
    } finally {
      await s.close();
    }
    // After shutdown the archive holds the log's newest checkpoint, and log verify reads it clean.
    const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
    const newest = store.latestCheckpoint()!.note;
    store.close();
    expect(archived(data)).toBe(newest);
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.json.ok).toBe(true);
    expect(v.json.logs[0].archive.sealed).toBe(256);
  }, 90_000);

  it('--archive off: nothing written there', async () => {
    const data = copy();
    rmSync(join(data, 'archive'), { recursive: true });
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0, archive: false, archiveDelayMs: 10 });
    try {
      expect((await decide(s.url)).status).toBe(200);
    } finally {
      await s.close();
    }
    expect(existsSync(join(data, 'archive'))).toBe(false);
  }, 90_000);

  for (const [what, rel, tamper] of [
    ['a changed entry bundle', 'tile/entries/000', (b: Buffer) => (b[100] ^= 0x01)],
    ['a changed hash tile', 'tile/0/000', (b: Buffer) => (b[32 * 9] ^= 0x01)],
  ] as const) {
    it(`${what}: the background audit finds it, signing stops, /healthz says so and names the archive`, async () => {
      const data = copy();
      const path = join(data, 'archive', 'default', rel);
      const bytes = Buffer.from(readFileSync(path));
      tamper(bytes);
      writeFileSync(path, bytes);
      const lines: Record<string, unknown>[] = [];
      const s = await startServer({ data, port: 0, idleCheckpointMs: 0, auditPage: 64, auditDelayMs: 0, logLine: (l) => lines.push(l) });
      try {
        await until(async () => (await metric(s, 'vouch_audit_failed')) === 1);
        const h = await get(`${s.url}/healthz`);
        expect(h.status).toBe(503);
        // Both copies are audited: the rows and the archive differ, and the error names the archive's file.
        expect(h.json.error).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(new RegExp(`background audit: entry \\d+: stored leaf hash does not match.*read from the archive.*${rel}`)) });
        expect((await decide(s.url)).status).toBe(503);
      } finally {
        await s.close();
      }
    }, 90_000);
  }

  it('a tile the writer would write found with other bytes: the integrity alarm, never overwritten, decisions go on', async () => {
    const data = copy();
    const dir = join(data, 'archive', 'default');
    rmSync(join(dir, 'checkpoint')); // so the next sync compares every tile it finds (as after a crash)
    const bad = Buffer.from(readFileSync(join(dir, 'tile/0/000')));
    bad[7] ^= 1;
    writeFileSync(join(dir, 'tile/0/000'), bad);
    const lines: Record<string, unknown>[] = [];
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0, archiveDelayMs: 20, logLine: (l) => lines.push(l) });
    try {
      await until(async () => lines.some((l) => l.msg === 'archive integrity alarm: archiving stopped for this tenant'));
      expect(lines).toContainEqual(expect.objectContaining({ level: 'error', code: 'ERR_ARCHIVE_MISMATCH', error: expect.stringMatching(/tile\/0\/000 holds other bytes/) }));
      expect((await decide(s.url)).status).toBe(200);
    } finally {
      await s.close();
    }
    expect(readFileSync(join(dir, 'tile/0/000'))).toEqual(bad);
    expect(existsSync(join(dir, 'checkpoint'))).toBe(false);
  }, 90_000);

  it('a removed tile: the same', async () => {
    const data = copy();
    rmSync(join(data, 'archive', 'default', 'tile', '0', '000'));
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0, auditPage: 64, auditDelayMs: 0 });
    try {
      await until(async () => (await metric(s, 'vouch_audit_failed')) === 1);
      expect((await get(`${s.url}/healthz`)).json.error).toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringMatching(/tile\/0\/000: missing/) });
    } finally {
      await s.close();
    }
  }, 90_000);
});
