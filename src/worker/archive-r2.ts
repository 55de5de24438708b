// The tile archive in R2 (docs/workers-archive.md): a tenant log as static C2SP tlog-tiles objects
// under `<tenant>/` in the VOUCH_ARCHIVE bucket, the layout of Node's archive directory
// (store/archive-write.ts) and the same bytes (log/tile-bytes.ts). Every tile object is written
// once (a conditional put); one already there with other bytes is refused, never overwritten.
// Only `<tenant>/checkpoint` is replaced, after the tiles it names.
import type { R2Bucket } from '@cloudflare/workers-types/index.ts';
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { formatTilePath, hashLeaf, MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES, tileBytesOf, tilesBetween, TILE_WIDTH, type LogStorage, type TileRef } from '../log/index.js';
import { archivedTiles, type ArchiveRead } from '../store/archive-view.js';

export interface R2ArchiveSync {
  /** Tree size of the checkpoint the bucket now holds (the size it started from when there was nothing new). */
  size: number;
  /** Objects written by this pass (tiles, bundles, the checkpoint). */
  written: number;
  /** Tile objects already there with the same bytes (a pass after one that stopped half way). */
  kept: number;
}

// tlog-tiles caching: tiles never change; the checkpoint does (a client polls it).
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CHECKPOINT_CACHE = 'public, max-age=5';

export const archiveKey = (tenant: string, rel: string): string => `${tenant}/${rel}`;

/** The most bytes an object at `rel` can hold and still be one of the log's; larger ones are never read into memory. */
const maxBytesOf = (rel: string): number => (rel === 'checkpoint' ? MAX_ARCHIVE_CHECKPOINT_BYTES : MAX_ARCHIVE_TILE_BYTES);

export function r2ArchiveMismatch(key: string, rel: string): StoreError {
  return new StoreError('ERR_ARCHIVE_MISMATCH', `${key} in the archive bucket holds other bytes than the log's ${rel}: the bucket was changed by someone else (never overwritten; compare it with the log's GET /tlog/<tenant>/${rel}, then delete the object and the next pass writes it again)`);
}

/**
 * Brings the tenant's objects up to the log's newest checkpoint, from `from` (the size the bucket
 * is known to hold: this object wrote it). With no checkpoint object there (a new or emptied
 * bucket), every tile is written or compared from 0. Idempotent after a pass that stopped half way.
 */
export async function syncR2Archive(bucket: R2Bucket, tenant: string, storage: LogStorage, from: number): Promise<R2ArchiveSync> {
  const latest = storage.latestCheckpoint();
  const done = from > 0 && (await bucket.head(archiveKey(tenant, 'checkpoint'))) ? from : 0;
  const result: R2ArchiveSync = { size: done, written: 0, kept: 0 };
  if (!latest || latest.size <= done) return result;
  const full: TileRef[] = [];
  for (const t of tilesBetween(done, latest.size)) {
    // The bytes the tiles routes serve; a stored row whose bytes do not hash to its leaf is refused, never published.
    const bytes = tileBytesOf(t, storage, { hashLeaf });
    if (await putOnce(bucket, tenant, t, bytes)) result.written++;
    else result.kept++;
    if (t.width === TILE_WIDTH) full.push(t);
  }
  // The tiles are in the bucket (R2 puts are strongly consistent) before the checkpoint names them.
  await bucket.put(archiveKey(tenant, 'checkpoint'), latest.note, { httpMetadata: { contentType: 'text/plain; charset=utf-8', cacheControl: CHECKPOINT_CACHE } });
  result.written++;
  result.size = latest.size;
  // A full tile's partial versions go, as on Node (tlog-tiles: clients fall back to the full tile).
  // Each pass leaves one at the edge, so without this a bundle filled over N passes would be stored
  // about N/2 times over.
  for (const t of full) await deletePrefix(bucket, archiveKey(tenant, `${formatTilePath({ ...t, width: 1 }).slice(0, -2)}/`));
  return result;
}

async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  for (let cursor: string | undefined; ; ) {
    const page = await bucket.list({ prefix, ...(cursor && { cursor }) });
    if (page.objects.length) await bucket.delete(page.objects.map((o: { key: string }) => o.key));
    if (!page.truncated) return;
    cursor = page.cursor;
  }
}

/** Writes a new object, or finds it already there with the same bytes (false); other bytes: ERR_ARCHIVE_MISMATCH. */
async function putOnce(bucket: R2Bucket, tenant: string, t: TileRef, bytes: Uint8Array): Promise<boolean> {
  const rel = formatTilePath(t);
  const key = archiveKey(tenant, rel);
  // If-None-Match: * — R2 refuses the put when any object has the key: nothing is ever replaced,
  // even by a put racing an attacker's (a head first and a plain put after could overwrite).
  const put = await bucket.put(key, bytes, { onlyIf: { etagDoesNotMatch: '*' }, httpMetadata: { contentType: 'application/octet-stream', cacheControl: t.width === TILE_WIDTH ? IMMUTABLE : 'public, max-age=60' } });
  if (put) return true;
  const present = await bucket.get(key);
  if (!present) throw new StoreError('ERR_STORE', `${key}: the archive bucket refused the write and holds no object there (deleted meanwhile?): the next pass tries again`);
  // Its size first: an object of another length is not the log's, and one planted at gigabytes
  // is never read into the Worker's memory.
  if (present.size !== bytes.length) {
    await present.body.cancel();
    throw r2ArchiveMismatch(key, rel);
  }
  if (!bytesEqual(new Uint8Array(await present.arrayBuffer()), bytes)) throw r2ArchiveMismatch(key, rel);
  return false;
}

/**
 * The tenant's archive read back from the bucket: its checkpoint and every tile that checkpoint
 * names, held in memory (about 1.3 KB an entry) for the archive view (store/archive-view.ts).
 * A checkpoint that names no size, or one past `logSize` (the log's own), reads as the checkpoint
 * alone: the view refuses it, and a forged size never makes this read the bucket's whole keyspace.
 */
export async function readR2Archive(bucket: R2Bucket, tenant: string, logSize: number): Promise<ArchiveRead> {
  const files = new Map<string, Uint8Array>();
  /** Objects larger than any file of their kind: named by the check, never read (a Worker has 128 MB). */
  const oversized = new Map<string, string>();
  const get = async (rel: string) => {
    const o = await bucket.get(archiveKey(tenant, rel));
    if (!o) return;
    if (o.size > maxBytesOf(rel)) {
      await o.body.cancel();
      oversized.set(rel, `${o.size} bytes, larger than any archive file of its kind (${maxBytesOf(rel)}): not read`);
      return;
    }
    files.set(rel, new Uint8Array(await o.arrayBuffer()));
  };
  await get('checkpoint');
  const cp = files.get('checkpoint');
  const size = cp ? Number(new TextDecoder().decode(cp).split('\n')[1]) : 0;
  if (Number.isSafeInteger(size) && size > 0 && size <= logSize) {
    const rels = archivedTiles(size, 'all').map(formatTilePath);
    // A few requests at a time: a Worker may hold six connections open.
    for (let i = 0; i < rels.length; i += 6) await Promise.all(rels.slice(i, i + 6).map(get));
  }
  return (rel) => {
    const why = oversized.get(rel);
    if (why) throw new StoreError('ERR_ARCHIVE_MISMATCH', why);
    return files.get(rel);
  };
}
