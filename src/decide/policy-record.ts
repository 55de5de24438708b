// The newest `policy` entry of a log (signed, append-only) is the record of the rules in force,
// never a mutable pointer: found through the store's index, checked against the signed tree, and
// appended to whenever the rules (or their pin) change. Portable: Node and the Worker's object use it.
import { bytesEqual, type Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { policyEntryBody, readPolicyEntry, type PolicyEntry } from '../entries/index.js';
import type { Json } from '../interceptors/types.js';
import { decodeEntry, hashLeaf, inclusionProof, parseCheckpoint, verifyInclusion, type LogStorage, type LogWriter, type StoredEntry } from '../log/index.js';

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
  /** The newest `policy` entry by index; optional: else found by a scan. */
  latestPolicyEntry?(): StoredEntry | undefined;
};

const inconsistent = (m: string) => new StoreError('ERR_STORE_INCONSISTENT', m);

/**
 * The newest `policy` entry, or undefined when the log has none. Its bytes must hash to the stored
 * leaf and that leaf must be included in the newest checkpoint's root (stored nodes, O(log n)), so
 * a rewritten entry or a pointer into nowhere is refused, not trusted.
 */
export function newestPolicyRecord(store: PolicyStore): PolicyRecord | undefined {
  const stored = store.latestPolicyEntry ? store.latestPolicyEntry() : scanBack(store);
  if (!stored) return undefined;
  const cp = store.latestCheckpoint();
  if (!cp || cp.size <= stored.seq) throw inconsistent(`policy entry ${stored.seq} is not covered by a signed checkpoint`);
  const leaf = hashLeaf(stored.bytes);
  const signedRoot = parseCheckpoint(cp.note.slice(0, cp.note.indexOf('\n\n') + 1)).root;
  if (!bytesEqual(leaf, stored.leaf) || !bytesEqual(signedRoot, cp.root) || !verifyInclusion(stored.seq, cp.size, leaf, inclusionProof(stored.seq, cp.size, store), signedRoot)) {
    throw inconsistent(`policy entry ${stored.seq} does not match the signed tree of ${cp.size} entries: the log was altered`);
  }
  let e: PolicyEntry;
  try {
    e = readPolicyEntry(decodeEntry(stored.bytes));
  } catch {
    throw inconsistent(`entry ${stored.seq} is not a policy entry naming a chain and a policy set`);
  }
  if (e.seq !== stored.seq) throw inconsistent(`entry ${stored.seq} is not a policy entry naming a chain and a policy set`);
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

/** For stores without the index query: newest first, page by page. */
function scanBack(store: PolicyStore): StoredEntry | undefined {
  const PAGE = 256;
  for (let to = store.size(); to > 0; to -= PAGE) {
    const page = [...store.entries(Math.max(0, to - PAGE), to)].reverse();
    for (const e of page) {
      try {
        if (decodeEntry(e.bytes).type === 'policy') return e;
      } catch {
        // not a policy entry vouch wrote; log verify names it
      }
    }
  }
  return undefined;
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
