// A tenant log another process writes, read without trusting its rows (issue 37, read-only attach):
// SQLite opened read-only (a WAL reader: it sees what the writer commits), and only what a checkpoint
// signed by the log's key history covers is served. Each new checkpoint is opened with the history's
// keys and the root rebuilt from the entries' own bytes; every entry read later is checked against
// the leaf hash it had then. A mismatch, a checkpoint that does not verify, or a log that shrinks
// stops the reader for good (fails closed): ERR_STORE_INCONSISTENT on every read after it.
import { existsSync } from 'node:fs';
import { bytesEqual, type Digest } from '../canonical/index.js';
import { StoreError, VouchError } from '../errors.js';
import { consistencyProof, extendRange, emptyRange, hashLeaf, inclusionProof, logOriginOf, openStrict, rangeRoot, rootFromInclusion, type CompactRange, type Hash, type StoredCheckpoint } from '../log/index.js';
import { logPath } from './data-dir-layout.js';
import { loadKeys } from './data-dir-key-files.js';
import type { LogPort } from './log-port.js';
import type { LogStore } from './port.js';
import { openSqliteStore } from './sqlite.js';
import { tenantKeysForVerify } from './tenant-keys.js';

const LEAF = 32;
const PAGE = 512;

/** Every write a read-only reader is asked for: the writer (the process holding the lock) takes them. */
export function readOnlyRefusal(what: string): VouchError {
  return new VouchError('ERR_READ_ONLY', `${what}: this server is attached read-only (vouch serve --read-only); decisions, policy, keys and erasure go to the gateway or \`vouch serve\` that holds the data directory`);
}

export interface VerifiedReader {
  tenant: string;
  origin: string;
  /** Catch up with the newest stored checkpoint (verify it, rehash the new entries); throws once the log cannot be trusted. */
  refresh(): StoredCheckpoint | undefined;
  /** The reader's failure, once there is one (sticky). */
  failure(): StoreError | undefined;
  port: LogPort;
  close(): void;
}

export function openVerifiedReader(dir: string, tenant: string, keyName: string): VerifiedReader {
  const path = logPath(dir, tenant);
  if (!existsSync(path)) throw new VouchError('ERR_NOT_FOUND', `no log for tenant ${tenant} in ${dir}`);
  const store: LogStore = openSqliteStore(path, { readonly: true });
  const origin = store.meta('origin') ?? logOriginOf(keyName, tenant);
  let verified: StoredCheckpoint | undefined;
  let leaves = new Uint8Array(PAGE * LEAF); // leaf hashes of [0, verified.size), from the entries' bytes
  let range: CompactRange = emptyRange();
  let failed: StoreError | undefined;

  const fail = (why: string): never => {
    failed ??= new StoreError('ERR_STORE_INCONSISTENT', `the log of tenant ${tenant} cannot be trusted, stopped serving it (\`vouch log verify --tenant ${tenant}\` says more): ${why}`);
    throw failed;
  };
  const leafAt = (seq: number): Uint8Array => leaves.subarray(seq * LEAF, (seq + 1) * LEAF);

  function refresh(): StoredCheckpoint | undefined {
    if (failed) throw failed;
    const newest = store.latestCheckpoint();
    if (!newest) {
      if (verified) fail(`its checkpoints are gone (the reader had verified size ${verified.size})`);
      return undefined;
    }
    if (verified && newest.note === verified.note) return verified;
    if (verified && newest.size < verified.size) fail(`its newest checkpoint is of size ${newest.size}, below the size ${verified.size} this reader verified: the log was cut`);
    // The key history the signed log commits to (the same check `vouch log verify` and the CLI's verified reads make).
    const { keys, problems } = tenantKeysForVerify(store, origin, loadKeys(dir, keyName).keys, keyName, { tail: false });
    if (problems.length) fail(problems.map((p) => p.message).join('; '));
    let cp;
    try {
      cp = openStrict(newest.note, keys.verifiers).checkpoint;
    } catch (e) {
      return fail(`the newest checkpoint (size ${newest.size}) does not verify with the log's keys: ${(e as Error).message}`);
    }
    if (cp.origin !== origin) fail(`the newest checkpoint is signed for ${cp.origin}, not ${origin}`);
    const from = verified?.size ?? 0;
    if (cp.size < from) fail(`a checkpoint of size ${cp.size} after one of size ${from}`);
    // The root from the entries themselves, never from stored nodes or a size column.
    if (leaves.length < cp.size * LEAF) {
      const grown = new Uint8Array(Math.max(cp.size * LEAF, leaves.length * 2));
      grown.set(leaves.subarray(0, from * LEAF));
      leaves = grown;
    }
    let next = range;
    for (let start = from; start < cp.size; start += PAGE) {
      const page = [...store.entries(start, Math.min(cp.size, start + PAGE))];
      const hashes: Hash[] = [];
      page.forEach((e, i) => {
        if (e.seq !== start + i) fail(`entry ${start + i} is not stored`);
        const leaf = hashLeaf(e.bytes);
        leaves.set(leaf, e.seq * LEAF);
        hashes.push(leaf);
      });
      if (page.length === 0) fail(`entry ${start} is not stored`);
      next = extendRange(next, hashes);
    }
    if (!bytesEqual(rangeRoot(next), cp.root)) fail(`the entries [0, ${cp.size}) do not hash to the root its checkpoint of size ${cp.size} signs`);
    range = next;
    verified = { ...newest, size: cp.size, root: cp.root };
    return verified;
  }

  // size() catches up (a route asks it first); the reads after it check only that nothing failed,
  // so a console catching up on n rows makes n entry reads, not n checkpoint queries too.
  const size = (): number => (refresh(), verified?.size ?? 0);
  const live = (): number => {
    if (failed) throw failed;
    return verified?.size ?? 0;
  };
  /** An entry's bytes, only inside the verified tree and only when they still hash to its leaf. */
  const entry = (seq: number): Uint8Array | undefined => {
    if (seq >= live()) return undefined;
    const bytes = store.entry(seq)?.bytes;
    if (!bytes || !bytesEqual(hashLeaf(bytes), leafAt(seq))) fail(`entry ${seq} changed after it was verified`);
    return bytes;
  };
  const within = (n: number, what: string) => {
    if (n > size()) throw new VouchError('ERR_NOT_FOUND', `${what}: the verified log has ${verified?.size ?? 0} entries`);
  };

  const port: LogPort = {
    origin,
    append: async () => Promise.reject(readOnlyRefusal('append')),
    size: async () => size(),
    entry: async (seq) => entry(seq),
    latestCheckpoint: async () => (size(), verified),
    checkpointAt: async (n) => (n <= size() ? store.checkpointAt(n) : undefined),
    inclusionProof: async (seq, n) => {
      within(n, 'inclusion proof');
      const proof = inclusionProof(seq, n, store);
      // At the verified size the proof must lead from the entry's leaf to the signed root: stored nodes are rows too.
      if (n === verified!.size && !bytesEqual(rootOf(seq, n, proof), verified!.root)) fail(`the stored tree does not prove entry ${seq} in the signed tree of size ${n}`);
      return proof;
    },
    consistencyProof: async (a, b) => (within(b, 'consistency proof'), consistencyProof(a, b, store)),
    payload: async (d: Digest) => (live(), store.payload(d)),
    erasePayload: async () => Promise.reject(readOnlyRefusal('payload erasure')),
    document: async (d: Digest) => (live(), store.document(d)),
    putDocument: async () => Promise.reject(readOnlyRefusal('storing a document')),
    nodes: async (level, lo, hi) => {
      live();
      if (store.nodeRange) return [...store.nodeRange(level, lo, hi)].map((n) => n.hash);
      const out: Hash[] = [];
      for (let i = lo; i <= hi; i++) out.push(store.node(level, i));
      return out;
    },
    async *entries(from, to) {
      for (let seq = from; seq < Math.min(to, live()); seq++) yield { seq, bytes: entry(seq)! };
    },
  };
  const rootOf = (seq: number, n: number, proof: Hash[]): Hash => rootFromInclusionSafe(seq, n, leafAt(seq), proof);

  return { tenant, origin, refresh, failure: () => failed, port, close: () => store.close() };
}

function rootFromInclusionSafe(seq: number, n: number, leaf: Hash, proof: Hash[]): Hash {
  try {
    return rootFromInclusion(seq, n, leaf, proof);
  } catch {
    return new Uint8Array(32);
  }
}
