// The tile archive (issue 40): writing a log's sealed history as static tlog-tiles (per entry,
// from scratch, fsync per file as vouch serve does), its size on disk, and `vouch log verify`
// reading sealed history from the archive vs from SQLite, on a log from the audit bench's own
// generator: 100,000 entries (10,000 with --quick). Generation is not timed. Then `vouch log prune`
// and the VACUUM after it, each timed (the SQLite file before and after), `vouch log verify` on the
// pruned log, and one read of an entry: from SQLite before pruning, from its archive tile after.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { run as logCommand } from '../src/cli/commands/log.js';
import { logPath, openSqliteStore, syncArchive, tenantArchiveDir } from '../src/store/node.js';
import { generateBenchLog } from './_audit-gen.js';
import type { BenchContext, Result } from './_types.js';

/** CI's smoke (test/bench/archive.test.ts): every line, at a size with full tiles and a partial one. */
export const TOY = { entries: 600 };

function bytesUnder(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(e.parentPath ?? dir, e.name);
    if (e.isDirectory()) {
      const sub = bytesUnder(p);
      bytes += sub.bytes;
      files += sub.files;
    } else (bytes += statSync(p).size), files++;
  }
  return { bytes, files };
}

/** `vouch log verify --json` in this process; its wall time and the archive part of its report. */
async function verify(data: string, archive: string): Promise<{ ms: number; entries: number; sealed: number }> {
  const out: string[] = [];
  const t0 = performance.now();
  const code = await logCommand(['verify', '--data', data, '--archive', archive, '--json'], { out: (l) => out.push(l), err: () => undefined });
  const ms = performance.now() - t0;
  const report = JSON.parse(out.join('\n')) as { ok: boolean; logs: { entries: number; archive: { sealed: number }; findings: unknown[] }[] };
  if (code !== 0 || !report.ok) throw new Error(`log verify did not come out clean: ${JSON.stringify(report.logs[0]?.findings.slice(0, 3))}`);
  return { ms, entries: report.logs[0].entries, sealed: report.logs[0].archive.sealed };
}

/** Each probe's entry on a fresh read-only store (its first read of that tile), then the next entry of the same tile: median µs of each, and the bytes read. */
function readEntries(data: string, probes: number[]): { firstUs: number; nextUs: number; bytes: string } {
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  const first: number[] = [];
  const next: number[] = [];
  const hash = createHash('sha256');
  try {
    for (const seq of probes) {
      const t0 = performance.now();
      const a = store.entry(seq);
      const t1 = performance.now();
      const b = store.entry(seq + 1);
      const t2 = performance.now();
      if (!a || !b) throw new Error(`entry ${seq} or ${seq + 1} not read`);
      first.push((t1 - t0) * 1000);
      next.push((t2 - t1) * 1000);
      hash.update(a.bytes).update(b.bytes);
    }
  } finally {
    store.close();
  }
  const mid = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
  return { firstUs: mid(first), nextUs: mid(next), bytes: hash.digest('hex') };
}

export async function run(ctx: BenchContext, override?: typeof TOY): Promise<Result[]> {
  const n = override?.entries ?? (ctx.quick ? 10_000 : 100_000);
  const label = n >= 1000 ? `${n / 1000}k` : String(n);
  const data = ctx.tempDir(`archive-${label}`);
  const t0 = performance.now();
  await generateBenchLog(data, n);
  ctx.log(`  archive: generated ${n} entries in ${Math.round(performance.now() - t0)} ms (not timed)`);
  const archive = join(data, 'archive');
  const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
  let size: number;
  let written: number;
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  try {
    ({ size, written } = await syncArchive(tenantArchiveDir(archive, 'default'), store));
  } finally {
    store.close();
  }
  const writeMs = performance.now() - w0;
  const cpu = process.cpuUsage(c0);
  const writeCpuMs = (cpu.user + cpu.system) / 1000;
  const disk = bytesUnder(tenantArchiveDir(archive, 'default'));
  const dbBytes = statSync(logPath(data, 'default')).size;
  const empty = join(data, 'no-archive');
  mkdirSync(empty);
  const runs = Math.max(1, ctx.repeat);
  const median = async (dir: string) => {
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await verify(data, dir));
    return all.sort((a, b) => a.ms - b.ms)[Math.floor(all.length / 2)];
  };
  const fromDb = await median(empty);
  const fromArchive = await median(archive);
  if (fromArchive.sealed === 0 || fromDb.sealed !== 0) throw new Error(`verify read ${fromArchive.sealed} entries from the archive, ${fromDb.sealed} without one`);
  // One entry a tile, the same seqs before and after pruning; never in the last full tile, which a pruned store's open check reads (and caches).
  const probes = Array.from({ length: Math.max(1, Math.min(32, Math.floor(n / 256) - 1)) }, (_, i) => 256 * i + 17);
  const fromRows = readEntries(data, probes);
  // Pruning: the rows of full archived tiles go; the file shrinks once vacuumed.
  const pruneOut: string[] = [];
  const p0 = performance.now();
  const pruneCode = await logCommand(['prune', '--data', data, '--tenant', 'default', '--archive', archive, '--json'], { out: (l) => pruneOut.push(l), err: (l) => pruneOut.push(l) });
  const pruneMs = performance.now() - p0;
  if (pruneCode !== 0) throw new Error(`log prune failed: ${pruneOut.join('\n')}`);
  const pruned = JSON.parse(pruneOut.join('\n')) as { below: number; entries: number; nodes: number };
  const unvacuumedBytes = statSync(logPath(data, 'default')).size;
  // `--vacuum` is the same VACUUM on the same store: timed apart from the deletes.
  const vstore = openSqliteStore(logPath(data, 'default'));
  const v0 = performance.now();
  try {
    vstore.vacuum();
  } finally {
    vstore.close();
  }
  const vacuumMs = performance.now() - v0;
  const prunedBytes = statSync(logPath(data, 'default')).size;
  const fromTiles = readEntries(data, probes);
  if (fromTiles.bytes !== fromRows.bytes) throw new Error('a pruned entry read back from the archive differs from its row');
  const fromPruned = await median(archive);
  const rate = (v: { ms: number; entries: number }) => Math.round(v.entries / (v.ms / 1000));
  return [
    { name: `write.${label}.usPerEntry`, unit: 'us/entry', value: +((writeMs * 1000) / size).toFixed(2), note: `${written} files (fsync each, then the checkpoint) for ${size} entries in ${(writeMs / 1000).toFixed(2)} s wall, ${(writeCpuMs / 1000).toFixed(2)} s CPU (the rest: fsync), from scratch` },
    { name: `write.${label}.bytesPerEntry`, unit: 'B/entry', value: Math.round(disk.bytes / size), note: `${disk.files} files, ${(disk.bytes / 2 ** 20).toFixed(1)} MiB on disk (uncompressed bundles and tiles); the SQLite file ${(dbBytes / 2 ** 20).toFixed(1)} MiB` },
    { name: `verify.${label}.fromSqlite.rate`, unit: 'entries/s', value: rate(fromDb), note: `vouch log verify, no archive: ${(fromDb.ms / 1000).toFixed(2)} s` },
    { name: `prune.${label}.dbBytes`, unit: 'bytes', value: prunedBytes, baseline: dbBytes, ratio: +(prunedBytes / dbBytes).toFixed(3), note: `SQLite file ${(dbBytes / 2 ** 20).toFixed(1)} MiB before, ${(unvacuumedBytes / 2 ** 20).toFixed(1)} MiB pruned, ${(prunedBytes / 2 ** 20).toFixed(1)} MiB vacuumed (${pruned.entries} entry rows and ${pruned.nodes} nodes below ${pruned.below} deleted)` },
    { name: `prune.${label}.seconds`, unit: 's', value: +(pruneMs / 1000).toFixed(2), note: `\`vouch log prune\` without --vacuum: every archived tile read back and checked, then the rows deleted in one transaction` },
    { name: `prune.${label}.vacuum.seconds`, unit: 's', value: +(vacuumMs / 1000).toFixed(2), note: 'the VACUUM `--vacuum` adds (the file rewritten, then the WAL truncated)' },
    { name: `read.${label}.pruned.first.us`, unit: 'us', value: Math.round(fromTiles.firstUs), baseline: Math.round(fromRows.firstUs), ratio: +(fromTiles.firstUs / fromRows.firstUs).toFixed(1), note: `one entry of a tile not read before (2 files read, 511 hashes checked), median of ${probes.length} tiles; baseline: the same entries from their rows before pruning` },
    { name: `read.${label}.pruned.next.us`, unit: 'us', value: +fromTiles.nextUs.toFixed(1), baseline: +fromRows.nextUs.toFixed(1), ratio: +(fromTiles.nextUs / fromRows.nextUs).toFixed(1), note: 'the next entry of the same tile (checked tile cached: 4 per store)' },
    { name: `verify.${label}.pruned.rate`, unit: 'entries/s', value: rate(fromPruned), baseline: rate(fromDb), ratio: +(rate(fromPruned) / rate(fromDb)).toFixed(2), note: `vouch log verify on the pruned log (sealed entries from the archive only): ${(fromPruned.ms / 1000).toFixed(2)} s` },
    { name: `verify.${label}.fromArchive.rate`, unit: 'entries/s', value: rate(fromArchive), baseline: rate(fromDb), ratio: +(rate(fromArchive) / rate(fromDb)).toFixed(2), note: `${fromArchive.sealed} entries from sealed tiles, the rest from SQLite: ${(fromArchive.ms / 1000).toFixed(2)} s` },
  ];
}
