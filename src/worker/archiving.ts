// The tile archive on Workers (docs/workers-archive.md): the optional VOUCH_ARCHIVE R2 binding, the
// record each tenant log object keeps of it (the size the bucket holds, refusals and failures:
// what /metrics shows), the pass its alarm runs (archive-r2.ts) and the read-back check that
// verifies the bucket against the log's signed checkpoints with the archive view Node's
// `vouch log verify` reads through. Never on the decision path: only the alarm writes the bucket.
import type { R2Bucket } from '@cloudflare/workers-types/index.ts';
import { verifyLog, type LogStorage, type NoteVerifier } from '../log/index.js';
import type { DurableSqlStorage } from '../store/durable-object.js';
import { checkArchiveFilesOf, openArchiveViewOf } from '../store/archive-view.js';
import { readR2Archive, syncR2Archive } from './archive-r2.js';
import type { WorkerEnv } from './env.js';

/** The bucket, or undefined: without the binding there is no archive (the log object keeps every entry anyway). */
export function archiveBucketOf(env: Pick<WorkerEnv, 'VOUCH_ARCHIVE'>): R2Bucket | undefined {
  return env.VOUCH_ARCHIVE;
}

export interface ArchiveStatus {
  /** Tree size of the checkpoint the bucket holds (0: none written yet). */
  size: number;
  /** Passes refused: an object held other bytes than the log's (ERR_ARCHIVE_MISMATCH). */
  mismatches: number;
  /** Passes that failed otherwise (R2 errors). */
  failures: number;
  /** The last pass's error, until a pass succeeds. */
  error?: string;
}

export interface ArchiveRecord {
  status(): ArchiveStatus;
  synced(size: number): void;
  failed(error: string, mismatch: boolean): void;
}

const SCHEMA = 'CREATE TABLE IF NOT EXISTS worker_archive (one INTEGER PRIMARY KEY CHECK (one = 1), size INTEGER NOT NULL, mismatches INTEGER NOT NULL, failures INTEGER NOT NULL, error TEXT)';

export function openArchiveRecord(storage: DurableSqlStorage): ArchiveRecord {
  storage.sql.exec(SCHEMA);
  const upsert = (size: number | null, mismatches: number, failures: number, error: string | null) =>
    void storage.sql.exec(
      `INSERT INTO worker_archive (one, size, mismatches, failures, error) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT(one) DO UPDATE SET size = COALESCE(?, size), mismatches = mismatches + excluded.mismatches, failures = failures + excluded.failures, error = excluded.error`,
      size ?? 0, mismatches, failures, error, size,
    );
  return {
    status: () => {
      const r = storage.sql.exec('SELECT size, mismatches, failures, error FROM worker_archive').toArray()[0];
      if (!r) return { size: 0, mismatches: 0, failures: 0 };
      return { size: Number(r.size), mismatches: Number(r.mismatches), failures: Number(r.failures), ...(r.error !== null && { error: r.error as string }) };
    },
    synced: (size) => upsert(size, 0, 0, null),
    failed: (error, mismatch) => upsert(null, mismatch ? 1 : 0, mismatch ? 0 : 1, error),
  };
}

/**
 * One pass from the alarm: the bucket brought up to the log's newest checkpoint. A refusal is
 * recorded and logged as an error (the object is never overwritten; decisions go on); ok false
 * means the alarm tries again later.
 */
export async function archivePass(o: { tenant: string; bucket: R2Bucket; storage: LogStorage; record: ArchiveRecord }): Promise<{ ok: boolean }> {
  try {
    const run = await syncR2Archive(o.bucket, o.tenant, o.storage, o.record.status().size);
    o.record.synced(run.size);
    if (run.written) console.log(JSON.stringify({ level: 'info', msg: 'archive', tenant: o.tenant, size: run.size, written: run.written, kept: run.kept }));
    return { ok: true };
  } catch (e) {
    const code = (e as { code?: string }).code;
    const mismatch = code === 'ERR_ARCHIVE_MISMATCH';
    o.record.failed((e as Error).message, mismatch);
    console.error(JSON.stringify({ level: 'error', msg: mismatch ? 'archive refused: an object in the bucket holds other bytes (integrity alarm; never overwritten)' : 'archive pass failed (tried again later)', tenant: o.tenant, code, error: (e as Error).message }));
    return { ok: false };
  }
}

export interface ArchiveCheckFinding {
  code: string;
  /** The object (relative to `<tenant>/`), for a finding about one. */
  path?: string;
  seq?: number;
  message: string;
}

export interface ArchiveCheck {
  /** Size of the bucket's checkpoint, once it is this log's, signed (0: none, or refused). */
  size: number;
  /** Entries read from the bucket's full entry bundles. */
  sealed: number;
  /** The log rebuilt over the bucket: the root at its newest checkpoint. */
  root: string;
  findings: ArchiveCheckFinding[];
}

/**
 * The bucket read back and checked: the log rebuilt over it (sealed entries and full hash tiles
 * from the bucket, the rest from the object's store) must give every signed checkpoint, and every
 * object the bucket's checkpoint names must be byte for byte the log's. Each problem is a finding;
 * one about an object is ERR_ARCHIVE_MISMATCH naming it.
 */
export async function checkR2Archive(o: { tenant: string; bucket: R2Bucket; storage: LogStorage; origin: string; verifiers: NoteVerifier[] }): Promise<ArchiveCheck> {
  const read = await readR2Archive(o.bucket, o.tenant, o.storage.size());
  const view = openArchiveViewOf(read, o.storage, { origin: o.origin, verifiers: o.verifiers });
  const report = verifyLog(view.storage, { origin: o.origin, verifiers: o.verifiers });
  const archive = [...view.findings, ...checkArchiveFilesOf(read, view.size, o.storage, 'all')];
  const findings: ArchiveCheckFinding[] = [
    ...[...new Map(archive.map((f) => [f.path, f])).values()].map((f) => ({ code: 'ERR_ARCHIVE_MISMATCH', path: f.path, message: `archive ${f.message}` })),
    ...report.findings.map((f) => ({ code: f.code, ...(f.seq !== undefined && { seq: f.seq }), message: `[${f.kind}] ${f.message}` })),
  ];
  return { size: view.size, sealed: view.sealed, root: report.root, findings };
}
