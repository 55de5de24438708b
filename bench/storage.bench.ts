// Bytes on disk per decision entry in a tenant's SQLite log file (issue 40, docs/storage.md):
// the same typical decisions (log.bench.ts's makeWork) written raw (codec 0, as before migration
// 0008) and compact (DEFLATE with the log's own dictionary), side by side in one run, with the
// tree nodes and indexes and without payloads or signatures (store-level appends of 256-entry
// batches, as group commit writes them). Also the store's append rate in each format: the CPU
// compression costs on the log thread.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { sha256, toHex } from '../src/canonical/index.js';
import { appendLeaf, emptyRange, encodeEntry, hashLeaf, type CompactRange, type EntryBody } from '../src/log/index.js';
import { openSqliteStore } from '../src/store/node.js';
import { makeWork } from './log.bench.js';
import { round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const ORIGIN = 'vouch.local/acme';
const BATCH = 256;
const POLICY: EntryBody = { type: 'policy', time: '2026-11-30T12:00:00.000Z', chain: `sha256:${'c'.repeat(64)}`, policySet: `sha256:${'d'.repeat(64)}`, engines: {}, action: 'activate' } as EntryBody;

// encodeEntry (JCS with its checks) takes about 1 ms an entry here, which would make the 1,000,000
// size take most of an hour: entries are built from 1000 makeWork bodies, each given its own
// session and fresh input and intent digests (incompressible, as real ones), and serialized by
// sorted-key JSON.stringify, which is JCS for these values (ASCII strings, small integers);
// run() checks that against encodeEntry on the first entries.
const TEMPLATES = Array.from({ length: 1000 }, (_, i) => makeWork(i).body as Record<string, unknown>);
const digestOf = (s: string) => `sha256:${toHex(sha256(new TextEncoder().encode(s)))}`;
const sorted = (v: unknown): unknown => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v);
const encoder = new TextEncoder();

function bodyOf(seq: number): EntryBody {
  if (seq === 0) return POLICY;
  return { ...TEMPLATES[seq % 1000], session: `sess-${Math.floor(seq / 50)}`, input: { digest: digestOf(`input-${seq}`) }, intent: { digest: digestOf(`intent-${seq}`) } } as unknown as EntryBody;
}

function entryBytes(seq: number, prev: Uint8Array): Uint8Array {
  return encoder.encode(JSON.stringify(sorted({ ...bodyOf(seq), v: 1, log: ORIGIN, seq, prev: toHex(prev), heads: {} })));
}

interface Measured {
  bytesPerEntry: number;
  entriesTable: number | undefined;
  nodesTable: number | undefined;
  rate: number;
}

/** Write `n` entries (a policy, then decisions) to a fresh log file; its size per entry after the last close. */
function writeLog(path: string, n: number, compress: boolean): Measured {
  const store = openSqliteStore(path, { compress });
  let range: CompactRange = emptyRange();
  let prev: Uint8Array = new Uint8Array(32);
  const t0 = performance.now();
  for (let from = 0; from < n; from += BATCH) {
    const batch = { entries: [] as { seq: number; bytes: Uint8Array; leaf: Uint8Array }[], nodes: [] as ReturnType<typeof appendLeaf>['created'] };
    for (let seq = from; seq < Math.min(n, from + BATCH); seq++) {
      const bytes = entryBytes(seq, prev);
      const leaf = hashLeaf(bytes);
      const step = appendLeaf(range, leaf);
      range = step.range;
      prev = leaf;
      batch.entries.push({ seq, bytes, leaf });
      batch.nodes.push(...step.created);
    }
    store.appendEntries!(batch);
  }
  const rate = (n * 1000) / (performance.now() - t0);
  store.close(); // the last connection: the WAL is checkpointed into the file and removed
  const db = new Database(path, { readonly: true });
  try {
    const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const table = (name: string): number | undefined => {
      try {
        return ((db.prepare('SELECT SUM(pgsize) FROM dbstat WHERE name = ?').pluck().get(name) as number) ?? 0) / n;
      } catch {
        return undefined; // no dbstat in this SQLite build
      }
    };
    return { bytesPerEntry: (pages * pageSize) / n, entriesTable: table('entries'), nodesTable: table('nodes'), rate };
  } finally {
    db.close();
  }
}

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}m` : n >= 1000 ? `${n / 1000}k` : `${n}`);

/** CI's smoke (test/bench/storage.test.ts): one small size, in seconds. */
export const TOY = [2000];

export async function run(ctx: BenchContext, sizes?: number[]): Promise<Result[]> {
  const ns = sizes ?? (ctx.quick ? [20_000] : [100_000, 1_000_000]);
  for (let seq = 0, prev: Uint8Array = new Uint8Array(32); seq < 50; prev = hashLeaf(entryBytes(seq, prev)), seq++) {
    const want = encodeEntry(ORIGIN, seq, prev, bodyOf(seq), {});
    if (Buffer.compare(Buffer.from(want), Buffer.from(entryBytes(seq, prev))) !== 0) throw new Error(`bench entry ${seq} is not its canonical encoding`);
  }
  const results: Result[] = [];
  for (const n of ns) {
    const dir = ctx.tempDir('storage');
    const raw = writeLog(join(dir, 'raw.db'), n, false);
    ctx.log(`  ${n} raw: ${round(raw.bytesPerEntry)} B/entry, ${round(raw.rate)} appends/s`);
    const compact = writeLog(join(dir, 'compact.db'), n, true);
    ctx.log(`  ${n} compact: ${round(compact.bytesPerEntry)} B/entry, ${round(compact.rate)} appends/s`);
    const l = label(n);
    results.push(
      { name: `disk_per_entry_${l}`, unit: 'B', value: round(compact.bytesPerEntry), baseline: round(raw.bytesPerEntry), ratio: round(compact.bytesPerEntry / raw.bytesPerEntry), note: `file pages in use / ${n} entries, compact vs raw, tree nodes and indexes included, payloads excluded; bar: <= 400` },
      { name: `append_store_${l}`, unit: 'appends/s', value: round(compact.rate), baseline: round(raw.rate), ratio: round(compact.rate / raw.rate), note: `store appends (entry bytes, leaf, nodes, ${BATCH}-entry transactions, fsync each), compact vs raw` },
      { name: `compress_cost_${l}`, unit: 'us/entry', value: round(1e6 / compact.rate - 1e6 / raw.rate), note: 'time an append takes longer compact than raw: the CPU compression adds on the log thread' },
    );
    if (compact.entriesTable !== undefined && raw.entriesTable !== undefined) {
      results.push({ name: `disk_entries_table_${l}`, unit: 'B', value: round(compact.entriesTable), baseline: round(raw.entriesTable), note: 'entries table (rows and b-tree) per entry, compact vs raw' });
      results.push({ name: `disk_nodes_table_${l}`, unit: 'B', value: round(compact.nodesTable!), note: 'tree nodes table per entry (the same in both formats)' });
    }
  }
  return results;
}
