// Every `policy` entry of a log, oldest first: what `vouch policy history` lists and what the
// ready line of `vouch serve` names as the policy in force (the newest one, checked against the
// signed tree by newestPolicyRecord). Entries are the record; nothing here reads meta.
import { utf8 } from '../../canonical/index.js';
import { newestPolicyRecord, type PolicyStore } from '../../decide/index.js';
import { committedRows, decodeEntry } from '../../log/index.js';

export interface PolicyActivation {
  seq: number;
  time: string;
  /** `activate` or `unpin` (entries written before actions were named: `activate`). */
  action: string;
  chain: string;
  policySet: string;
  mirror?: string;
  /** Who: the API caller's principal, `cli:<user>`, `start-up`; absent in older entries. */
  by?: string;
  pinned: boolean;
}

// Canonical JSON sorts keys and has no spaces: a policy entry holds exactly this byte string.
const MARK = utf8.encode('"type":"policy"');

function hasMark(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(MARK) >= 0;
}

/** The activation an entry records, or undefined when the entry is not a `policy` entry. */
export function activationOf(bytes: Uint8Array): PolicyActivation | undefined {
  if (!hasMark(bytes)) return undefined;
  const e = decodeEntry(bytes);
  if (e.type !== 'policy') return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    seq: e.seq,
    time: e.time,
    action: str(e.action) ?? 'activate',
    chain: str(e.chain) ?? '',
    policySet: str(e.policySet) ?? '',
    ...(str(e.mirror) && { mirror: str(e.mirror) }),
    ...(str(e.by) && { by: str(e.by) }),
    pinned: e.pinned === true,
  };
}

/**
 * Every policy entry, oldest first: one pass over the log, and each one a leaf of the signed tree,
 * exactly as many as the log commits to (log/committed-state.ts; an entry rewritten in the file is
 * refused, ERR_STORE_INCONSISTENT, never listed as the record).
 */
export function policyHistory(store: PolicyStore): PolicyActivation[] {
  return committedRows(store, 'policy', undefined).flatMap((r) => activationOf(r.bytes) ?? []);
}

/** The policy in force (newest policy entry, checked against the signed tree) with its time and author. */
export function policyInForce(store: PolicyStore): PolicyActivation | undefined {
  const rec = newestPolicyRecord(store);
  if (!rec) return undefined;
  const stored = store.entry(rec.seq);
  const a = stored && activationOf(stored.bytes);
  // The record's pin wins: for entries older than pins-in-entries it comes from the legacy meta.
  return a ? { ...a, pinned: rec.pinned } : { seq: rec.seq, time: '', action: 'activate', chain: rec.chain, policySet: rec.policySet, pinned: rec.pinned };
}

export const short = (d: string) => (d.length > 19 ? `${d.slice(0, 19)}…` : d);

/** "policy entry #5 (2026-12-01T10:00:00Z, by cli:alice, pinned)". */
export function describeActivation(a: PolicyActivation): string {
  const parts = [a.time, a.by && `by ${a.by}`, a.action !== 'activate' && a.action, a.pinned ? 'pinned' : 'not pinned'].filter(Boolean);
  return `policy entry #${a.seq} (${parts.join(', ')})`;
}
