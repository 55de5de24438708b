// Payload retention (issue 40): payloads (inputs, intents, executed parameters) that no entry has
// named for N days leave the payload table, each batch recorded first by a signed `erasure` entry
// listing its digests. Entries hold only digests, so every entry, proof and signature stays valid;
// replay reports those decisions as erased. Entries themselves are never removed. Portable: the
// clock's time comes in as `now`, storage through the target.
import type { Digest } from '../canonical/index.js';
import { ConfigError, type Issue } from '../errors.js';
import { erasureEntryBody, MAX_ERASURE_DIGESTS } from '../entries/index.js';
import { decodeEntry, type Appended, type EntryBody } from '../log/index.js';

export interface RetentionTarget {
  size(): Promise<number>;
  entry(seq: number): Promise<Uint8Array | undefined>;
  /** Up to `limit` payloads no entry at or after `beforeSeq` names (store/port.ts). */
  expiredPayloads(beforeSeq: number, limit: number): Promise<Digest[]>;
  /** Deletes the payload only if no entry at or after `beforeSeq` names it by now. */
  eraseExpiredPayload(digest: Digest, beforeSeq: number): Promise<boolean>;
  append(body: EntryBody): Promise<Appended>;
}

/** A log port (store/log-port.ts) as retention's target: ERR_CONFIG when its store cannot find payloads by age. */
export function retentionTargetOf(port: Omit<RetentionTarget, 'expiredPayloads' | 'eraseExpiredPayload'> & Partial<Pick<RetentionTarget, 'expiredPayloads' | 'eraseExpiredPayload'>>): RetentionTarget {
  const { expiredPayloads, eraseExpiredPayload } = port;
  if (!expiredPayloads || !eraseExpiredPayload) throw new ConfigError('ERR_CONFIG', 'payload retention is not available on this store (Workers: not yet; see docs/retention.md)');
  return {
    size: () => port.size(),
    entry: (seq) => port.entry(seq),
    expiredPayloads: (beforeSeq, limit) => expiredPayloads(beforeSeq, limit),
    eraseExpiredPayload: (d, beforeSeq) => eraseExpiredPayload(d, beforeSeq),
    append: (body) => port.append(body),
  };
}

export interface RetentionRunOptions {
  days: number;
  /** RFC 3339, from the caller's clock: the erasure entries' time and the cut-off's origin. */
  now: string;
  /** Digests per erasure entry (default and most MAX_ERASURE_DIGESTS). */
  batch?: number;
  /** Erasure entries per run at most (default 100): a large backlog drains over several runs. */
  maxEntries?: number;
}

export interface RetentionRun {
  /** Payloads no entry since this time names are expired. */
  cutoff: string;
  /** Entries before this seq are older than the cut-off. */
  beforeSeq: number;
  erased: number;
  /** The erasure entries appended. */
  seqs: number[];
  /** More expired payloads remain (maxEntries reached). */
  more: boolean;
}

const DAY_MS = 86_400_000;

/** One pass: find the cut-off seq (O(log n) entry reads), then erase expired payloads in batches. */
export async function runRetention(target: RetentionTarget, opts: RetentionRunOptions): Promise<RetentionRun> {
  // Any caller's days (the CLI, a store's own scheduler): bounded, so the cut-off is always a date.
  if (!(typeof opts.days === 'number' && opts.days >= 0 && opts.days <= MAX_RETENTION_DAYS)) throw new ConfigError('ERR_CONFIG', `retention: days ${String(opts.days)} must be a number of days, 0..${MAX_RETENTION_DAYS}`);
  const nowMs = Date.parse(opts.now);
  if (!Number.isFinite(nowMs)) throw new ConfigError('ERR_CONFIG', `retention: now ${JSON.stringify(opts.now)} is not an RFC 3339 time`);
  const cutoffMs = nowMs - opts.days * DAY_MS;
  const cutoff = new Date(cutoffMs).toISOString();
  const beforeSeq = await firstSeqAfter(target, cutoffMs);
  const batch = Math.max(1, Math.min(opts.batch ?? MAX_ERASURE_DIGESTS, MAX_ERASURE_DIGESTS));
  const maxEntries = opts.maxEntries ?? 100;
  const run: RetentionRun = { cutoff, beforeSeq, erased: 0, seqs: [], more: false };
  if (beforeSeq === 0) return run;
  const reason = `retention: no entry has named these payloads since ${cutoff} (${opts.days} days; entries before seq ${beforeSeq})`;
  for (;;) {
    const digests = await target.expiredPayloads(beforeSeq, batch);
    if (digests.length === 0) return run;
    if (run.seqs.length >= maxEntries) return { ...run, more: true };
    // Recorded (durable, signed) before the bytes go: a crash in between leaves a recorded erasure
    // whose payloads are still there (the next run lists them again), never payloads gone unrecorded.
    const appended = await target.append(erasureEntryBody({ time: opts.now, digests: [...new Set(digests)].sort(), before: beforeSeq, reason, by: 'operator:retention' }));
    run.seqs.push(appended.seq);
    let erased = 0;
    for (const d of digests) if (await target.eraseExpiredPayload(d, beforeSeq)) erased++;
    run.erased += erased;
    // Nothing deleted (each named again meanwhile, or the store refused): stop rather than loop.
    if (erased === 0) return run;
  }
}

/**
 * The first seq whose entry's time is after `cutoffMs`: entries are appended in time order, so a
 * binary search reads O(log n) of them. An entry without a readable time counts as recent (keeps).
 */
export async function firstSeqAfter(target: Pick<RetentionTarget, 'size' | 'entry'>, cutoffMs: number): Promise<number> {
  let lo = 0;
  let hi = await target.size();
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (isOlder(await target.entry(mid), cutoffMs)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function isOlder(bytes: Uint8Array | undefined, cutoffMs: number): boolean {
  if (!bytes) return false;
  try {
    const t = Date.parse(String(decodeEntry(bytes).time));
    return Number.isFinite(t) && t <= cutoffMs;
  } catch {
    return false;
  }
}

export interface RetentionPolicy {
  /** Days for tenants not listed in `tenants`; absent: those tenants keep payloads. */
  payloadDays?: number;
  /** Per tenant: days, or null to keep that tenant's payloads. */
  tenants: Record<string, number | null>;
  /** How often the service runs retention, minutes. */
  everyMinutes: number;
}

const KNOWN = new Set(['payloadDays', 'tenants', 'everyMinutes']);
/** A hundred years: the longest retention (config file and `vouch payload expire`). */
export const MAX_RETENTION_DAYS = 36_500;

/** `--retention FILE`: {"payloadDays": 180, "tenants": {"acme": 365, "trial": 30, "legal-hold": null}, "everyMinutes": 60}. */
export function parseRetentionPolicy(doc: unknown): RetentionPolicy {
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path, message });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigError('ERR_CONFIG', 'retention config must be a JSON object like {"payloadDays": 180}');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN.has(k)) bad(`/${k}`, 'unknown member (payloadDays, tenants, everyMinutes)');
  const days = (v: unknown, path: string): boolean => {
    const ok = typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_RETENTION_DAYS;
    if (!ok) bad(path, `must be a number of days, 0..${MAX_RETENTION_DAYS} (fractions allowed)`);
    return ok;
  };
  if (o.payloadDays !== undefined) days(o.payloadDays, '/payloadDays');
  const tenants: Record<string, number | null> = Object.create(null);
  if (o.tenants !== undefined) {
    if (typeof o.tenants !== 'object' || o.tenants === null || Array.isArray(o.tenants)) bad('/tenants', 'must be an object {tenant: days or null}');
    else
      for (const [t, v] of Object.entries(o.tenants)) {
        if (v === null || days(v, `/tenants/${t}`)) tenants[t] = v as number | null;
      }
  }
  const every = o.everyMinutes ?? 60;
  if (!Number.isSafeInteger(every) || (every as number) < 1 || (every as number) > 10_080) bad('/everyMinutes', 'must be an integer, 1..10080');
  if (issues.length) throw new ConfigError('ERR_CONFIG', `retention config: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { payloadDays: o.payloadDays as number | undefined, tenants, everyMinutes: every as number };
}

/** The tenant's retention in days, or undefined when its payloads are kept. */
export function retentionDaysOf(policy: RetentionPolicy, tenant: string): number | undefined {
  if (Object.prototype.hasOwnProperty.call(policy.tenants, tenant)) return policy.tenants[tenant] ?? undefined;
  return policy.payloadDays;
}
