// The newest `policy` entry of a log (signed, append-only) is the record of the rules in force,
// never a mutable pointer: named by the log's newest entry (its heads), checked against the signed tree, and
// appended to whenever the rules (or their pin) change. Portable: Node and the Worker's object use it.
import type { Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { policyEntryBody, readPolicyEntry, type PolicyEntry } from '../entries/index.js';
import type { Json } from '../interceptors/types.js';
import { committedNewest, type LogStorage, type LogWriter } from '../log/index.js';

/** Legacy (before migration 0003): the pin lived in meta as "<chain> <policy set>". Read only. */
export const LEGACY_PIN_META = 'policy.pinned';

export interface PolicyRecord {
  seq: number;
  chain: Digest;
  policySet: Digest;
  /** A gateway's mirror chain (requests from the server), activated with the same policy set. */
  mirror?: Digest;
  /** Explicitly activated (CLI, POST /v1/policy): it wins over the config file at the next start. */
  pinned: boolean;
  engines?: Json;
}

/** What reading the policy record needs of a log's store (SQLite and the Durable Object's both fit). */
export type PolicyStore = Pick<LogStorage, 'entry' | 'entries' | 'size' | 'latestCheckpoint' | 'node'> & {
  meta(key: string): string | undefined;
};

const inconsistent = (m: string) => new StoreError('ERR_STORE_INCONSISTENT', m);

/**
 * The newest `policy` entry, or undefined when the log has none: the one the log's newest entry
 * commits to (log/committed-state.ts), read by its seq, never through an index, and a leaf of the
 * signed tree (O(log n)). A rewritten entry, a pointer into nowhere or a hidden newer activation is
 * refused, not trusted.
 */
export function newestPolicyRecord(store: PolicyStore): PolicyRecord | undefined {
  const found = committedNewest(store, 'policy');
  if (!found) return undefined;
  let e: PolicyEntry;
  try {
    e = readPolicyEntry(found.entry);
  } catch {
    throw inconsistent(`entry ${found.row.seq} is not a policy entry naming a chain and a policy set`);
  }
  let pinned: boolean;
  if (typeof e.pinned === 'boolean') pinned = e.pinned;
  else {
    // Entries written before pins were recorded in them: the legacy meta pin must name this entry's policy.
    const legacy = store.meta(LEGACY_PIN_META) || undefined;
    if (legacy !== undefined && legacy !== `${e.chain} ${e.policySet}`) {
      throw inconsistent(`the pin in meta (${legacy}) disagrees with the newest policy entry ${e.seq} (${e.chain} ${e.policySet}): refusing to start on rules the log does not record`);
    }
    pinned = legacy !== undefined;
  }
  return { seq: e.seq, chain: e.chain, policySet: e.policySet, ...(e.mirror !== undefined && { mirror: e.mirror }), pinned, engines: e.engines };
}

export interface PolicyNames {
  chain: Digest;
  policySet: Digest;
  engines: Json;
  /** The gateway's mirror chain (same policy set), recorded in the same entry. */
  mirror?: Digest;
  /** Who put it in force: the API caller's principal, `cli:<user>`, or `start-up` (vouch policy history). */
  by?: string;
}

/**
 * Append a `policy` entry unless the newest one already names this policy and pin. `pinned`
 * true: an explicit activation (CLI, POST /v1/policy). Unset: a start-up recording, which keeps
 * the newest entry's pin when the policy is the same and is unpinned otherwise.
 */
export async function recordPolicyEntry(log: LogWriter, store: PolicyStore, p: PolicyNames, time: string, pinned?: boolean): Promise<number | undefined> {
  const newest = newestPolicyRecord(store);
  const same = newest !== undefined && newest.chain === p.chain && newest.policySet === p.policySet && newest.mirror === p.mirror;
  const pin = pinned ?? (same && newest.pinned);
  if (same && newest.pinned === pin) return undefined;
  return (await log.append(policyEntryBody({ time, chain: p.chain, policySet: p.policySet, engines: p.engines, action: 'activate', pinned: pin, mirror: p.mirror, by: p.by }))).seq;
}

/** Unpin: a `policy` entry naming the same policy, not pinned (the next start uses the config file). */
export async function recordUnpin(log: LogWriter, store: PolicyStore, time: string, by?: string): Promise<number | undefined> {
  const newest = newestPolicyRecord(store);
  if (!newest?.pinned) return undefined;
  return (await log.append(policyEntryBody({ time, chain: newest.chain, policySet: newest.policySet, engines: newest.engines ?? {}, action: 'unpin', pinned: false, mirror: newest.mirror, by }))).seq;
}
