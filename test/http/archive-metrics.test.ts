// `vouch serve` on Node counts its tile archive on /metrics as the Worker does: the size the
// archive's checkpoint holds after each pass, passes refused by the integrity alarm (a file-level
// attacker's file where the archiver writes), and passes that failed otherwise. A real server, real
// SQLite and real archive files; the numbers come from the passes, not from a scrape's reading.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { get, post, testServer } from './_server.js';

type Server = Awaited<ReturnType<typeof testServer>>;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
});

const decide = (s: Server, i: number) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `t${i}` } } });
const logSize = async (s: Server): Promise<number> => (await get(`${s.url}/v1/checkpoint`)).json.size;
const archiveDir = (s: Server) => join(s.dir, 'data', 'archive', 'default');
/** The tree size the archive's own checkpoint file names (line 2 of the note). */
const archivedCheckpointSize = (s: Server) => Number(readFileSync(join(archiveDir(s), 'checkpoint'), 'utf8').split('\n')[1]);
const series = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name}\\{tenant="default"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
const scrape = async (s: Server): Promise<string> => (await get(`${s.url}/metrics`)).json as string;
async function until(s: Server, ok: (text: string) => boolean, what: string): Promise<string> {
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const text = await scrape(s);
    if (ok(text)) return text;
  }
  throw new Error(`timed out waiting for ${what}:\n${(await scrape(s)).split('\n').filter((l) => l.startsWith('vouch_archive')).join('\n')}`);
}

async function serverWithLines() {
  const lines: Record<string, unknown>[] = [];
  const s = await testServer({ idleCheckpointMs: 0, auditDelayMs: 0, archiveDelayMs: 20, logLine: (l) => void lines.push(l) });
  servers.push(s);
  return { s, lines };
}

describe('vouch_archive_* on Node', () => {
  it('the size is the archive checkpoint\'s after a full tile; a planted file is one mismatch and the alarm is still logged', async () => {
    const { s, lines } = await serverWithLines();
    // Past one full tile (256 entries), in waves of decisions (a checkpoint per batch).
    for (let i = 0; (await logSize(s)) < 260; i += 40) await Promise.all(Array.from({ length: 40 }, (_, k) => decide(s, i + k)));
    const size = await logSize(s);
    const text = await until(s, (t) => series(t, 'vouch_archive_size') === size, `vouch_archive_size ${size}`);
    expect(archivedCheckpointSize(s)).toBe(size);
    expect(readFileSync(join(archiveDir(s), 'tile', 'entries', '000')).length).toBeGreaterThan(0); // the full tile is archived
    expect(series(text, 'vouch_archive_mismatches_total')).toBe(0);
    expect(series(text, 'vouch_archive_failures_total')).toBe(0);
    expect(text).toMatch(/^vouch_archive_mismatch_tenants 0$/m);

    // The file-level attacker: a copy of the archived partial bundle, one byte edited, planted at the
    // path the next pass writes (one more decision: width + 1). Tile files are written once and
    // compared when found, never overwritten: the pass is refused.
    const width = size - 256;
    const forged = Buffer.from(readFileSync(join(archiveDir(s), 'tile', 'entries', `001.p`, String(width))));
    forged[10] ^= 0xff;
    mkdirSync(join(archiveDir(s), 'tile', 'entries', '001.p'), { recursive: true });
    writeFileSync(join(archiveDir(s), 'tile', 'entries', '001.p', String(width + 1)), forged);
    expect((await decide(s, 9999)).status).toBe(200);
    expect(await logSize(s)).toBe(size + 1); // the planted path is the one this pass writes
    const after = await until(s, (t) => series(t, 'vouch_archive_mismatches_total') === 1, 'vouch_archive_mismatches_total 1');
    expect(series(after, 'vouch_archive_size')).toBe(size); // what the archive's checkpoint still names
    expect(archivedCheckpointSize(s)).toBe(size);
    expect(series(after, 'vouch_archive_failures_total')).toBe(0);
    expect(after).toMatch(/^vouch_archive_mismatch_tenants 1$/m);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'archive integrity alarm: archiving stopped for this tenant', tenant: 'default', code: 'ERR_ARCHIVE_MISMATCH' }));

    // Archiving stays stopped for the tenant: more decisions, no more passes counted.
    expect((await decide(s, 10000)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const later = await scrape(s);
    expect(series(later, 'vouch_archive_mismatches_total')).toBe(1);
    expect(series(later, 'vouch_archive_size')).toBe(size);
  }, 120_000);

  it('a pass that fails otherwise (the tenant\'s archive directory is a file) counts a failure, not a mismatch; the next pass after repair moves the size on', async () => {
    const { s, lines } = await serverWithLines();
    for (let i = 0; i < 3; i++) expect((await decide(s, i)).status).toBe(200);
    const size = await logSize(s);
    await until(s, (t) => series(t, 'vouch_archive_size') === size && /^vouch_audit_complete\{tenant="default"\} 1$/m.test(t), `vouch_archive_size ${size}, audit complete`);
    const dir = archiveDir(s);
    renameSync(dir, `${dir}.moved`);
    writeFileSync(dir, 'not a directory');
    expect((await decide(s, 3)).status).toBe(200);
    const failed = await until(s, (t) => series(t, 'vouch_archive_failures_total') === 1, 'vouch_archive_failures_total 1');
    expect(series(failed, 'vouch_archive_mismatches_total')).toBe(0);
    expect(series(failed, 'vouch_archive_size')).toBe(size);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'archive sync failed (retried after the next commit)', tenant: 'default' }));
    // Repaired: the next commit's pass archives everything the log holds.
    rmSync(dir);
    renameSync(`${dir}.moved`, dir);
    expect((await decide(s, 4)).status).toBe(200);
    const now = await logSize(s);
    const text = await until(s, (t) => series(t, 'vouch_archive_size') === now, `vouch_archive_size ${now}`);
    expect(archivedCheckpointSize(s)).toBe(now);
    expect(series(text, 'vouch_archive_failures_total')).toBe(1);
  }, 60_000);
});
