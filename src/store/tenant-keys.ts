// A tenant log's keys (issue 18): its history read from its signed `key` entries, every rotation
// proven by its handover checkpoint, and the set signing now, which must be the data directory's
// key files (key files swapped without `vouch keys rotate` are refused, not accepted silently).
// The key name of a log made since issue 18 is its origin (tlog-checkpoint: SHOULD match).
import { toHex } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import type { SignatureAlg, Verifier } from '../crypto/index.js';
import { checkHandovers, checkSignedTree, committedRows, historyVerifiers, readKeyHistory, sameKey, type KeyHistory, type NoteVerifier, type PublicKey } from '../log/index.js';
import { explainKeyFiles, KEY_FILES, RESTORE_ADVICE } from './key-files-check.js';
import type { LogStore } from './port.js';

/** meta key: the note key name a log's first keys sign under (set when the log is made). */
export const KEY_NAME_META = 'key.name';

export interface TenantKeys {
  /** The log's origin. */
  origin: string;
  history: KeyHistory;
  /** Every key of the history, with the sizes it signs. */
  verifiers: NoteVerifier[];
  /** The name the current keys sign under. */
  name: string;
}

/** A new log signs under its origin; a log made before issue 18 keeps the name it signed with (`legacy`) until a rotation. */
export function genesisName(store: LogStore, origin: string, legacy: string): string {
  const recorded = store.meta(KEY_NAME_META);
  if (recorded !== undefined) return recorded;
  if (store.size() === 0 && !store.latestCheckpoint()) {
    try {
      store.setMeta(KEY_NAME_META, origin);
      return origin;
    } catch {
      return origin; // a read-only reader of an empty log
    }
  }
  return legacy;
}

/**
 * The log's key entries; without `tail`, only those a signed checkpoint covers. An entry after the
 * newest checkpoint is signed by no one yet, and anyone who can write the file can add one (a
 * revocation of the current key, say): it counts once the tail is signed, which needs this
 * service's commit tag (log/commit-tag.ts). `tail`: finishing a key rotation, whose own entry may
 * be in that tail (the appender still checks the tail's tag before signing it). Exactly the key
 * entries the signed log commits to, each a leaf of its tree (log/committed-state.ts): an index
 * that hides a revocation is refused (issue 35), ERR_STORE_INCONSISTENT.
 */
function signedKeyEntries(store: LogStore, tail: boolean): { seq: number; bytes: Uint8Array }[] {
  const size = tail ? store.size() : Math.min(store.size(), store.latestCheckpoint()?.size ?? 0);
  try {
    return committedRows(store, 'key', store.keyEntries?.(), size);
  } catch (e) {
    throw refuse((e as Error).message);
  }
}

function refuse(why: string): StoreError {
  return new StoreError('ERR_STORE_INCONSISTENT', `refusing to sign: ${why}`);
}

/**
 * checkSignedTree with the history's keys; when the newest checkpoint does not open with them
 * because of the key files (one missing, or another instance's), the error says so (key-files-check.ts).
 */
function checkedTree(store: LogStore, origin: string, history: KeyHistory, files: PublicKey[], commitKeys?: Uint8Array[], openVerifier?: OpenVerifier) {
  try {
    return checkSignedTree(store, origin, historyVerifiers(history, openVerifier), commitKeys);
  } catch (e) {
    const note = store.latestCheckpoint()?.note;
    // Only while the files are what the history says signs now: a rotated log's other keys are its own business.
    const filesSign = history.current.keys.every((k) => files.some((f) => sameKey(k, f)));
    throw (note !== undefined && filesSign && explainKeyFiles(note, files, origin)) || e;
  }
}

/** The log's history, checked; throws ERR_STORE_INCONSISTENT saying why when it cannot be trusted. */
/**
 * The verifier of one key for the open check alone (the verifiers returned are the portable ones):
 * the service passes node:crypto's Ed25519 (crypto/node-ed25519.ts), as its log thread's open check
 * does, so its start-up does not run a cold JavaScript verification (about 35 ms).
 */
export type OpenVerifier = (alg: SignatureAlg, publicKey: Uint8Array) => Verifier;

export function tenantKeys(store: LogStore, origin: string, files: PublicKey[], legacy: string, opts: { requireFiles?: boolean; tail?: boolean; commitKeys?: Uint8Array[]; openVerifier?: OpenVerifier } = {}): TenantKeys {
  const genesis = { name: genesisName(store, origin, legacy), keys: files };
  const entries = signedKeyEntries(store, opts.tail === true);
  const { history, problems } = readKeyHistory(genesis, entries);
  if (problems.length) throw refuse(problems.map((p) => p.message).join('; '));
  // The rows were counted against the heads of the newest checkpoint's entry: that checkpoint must
  // verify with the keys they give, and a tail they came from carry this service's commit tag, before
  // anyone (the published key set included) takes this history (issue 35). O(log n), as at start-up.
  const opened = checkedTree(store, origin, history, files, opts.tail ? opts.commitKeys : undefined, opts.openVerifier);
  if (opts.tail === true && opened.range.size > opened.signed && !opened.tailTagged) throw refuse(`key entries after the newest signed checkpoint (size ${opened.signed}) count only with a commit tag, and no commit key was given`);
  const cur = history.current.keys;
  const lacking = opts.requireFiles !== false ? cur.find((k) => !files.some((f) => f.alg === k.alg)) : undefined;
  if (lacking) throw new StoreError('ERR_KEY_MISSING', `${KEY_FILES[lacking.alg]} is missing (log ${origin} signs with an ${lacking.alg} key, its key history says): ${RESTORE_ADVICE}`);
  if (opts.requireFiles !== false && !(cur.length === files.length && cur.every((k) => files.some((f) => sameKey(k, f))))) {
    const ids = (ks: PublicKey[]) => ks.map((k) => `${k.alg} ${toHex(k.publicKey).slice(0, 16)}…`).join(', ');
    throw refuse(`the key files (${ids(files)}) are not the keys this log's history says sign now (${ids(cur)}): keys are changed with \`vouch keys rotate\`, never by replacing the files`);
  }
  const handovers = checkHandovers(store, history);
  if (handovers.length) throw refuse(handovers.map((p) => p.message).join('; '));
  return { origin, history, verifiers: historyVerifiers(history), name: history.current.name };
}

/**
 * For `vouch log verify`, the published key set of a log this process did not open, bundles and
 * `vouch keys list`: the history as the log's entries give it, whatever its problems, and every
 * problem as a finding (unchained entries, unproven handovers, key files that are not the current
 * keys, an index that hides a key entry) instead of a refusal. Only what a verified signature
 * covers counts (issue 35): the newest checkpoint note must verify with the history's keys and the
 * stored tree reproduce it (the start-up check), or that is a problem; entries after it count only
 * with `commitKeys` whose commit tag verifies (an unfinished rotation), never on their own word.
 */
export function tenantKeysForVerify(store: LogStore, origin: string, files: PublicKey[], legacy: string, opts: { tail?: boolean; commitKeys?: Uint8Array[] } = {}): { keys: TenantKeys; problems: { seq?: number; message: string }[] } {
  const genesis = { name: genesisName(store, origin, legacy), keys: files };
  const out: { seq?: number; message: string }[] = [];
  const read = (tail: boolean): { seq: number; bytes: Uint8Array }[] => {
    try {
      return signedKeyEntries(store, tail);
    } catch (e) {
      // The index lies (or the log was altered): report it, and read the history by a scan instead.
      out.push({ message: (e as Error).message });
      const size = tail ? store.size() : Math.min(store.size(), store.latestCheckpoint()?.size ?? 0);
      try {
        return committedRows(store, 'key', undefined, size);
      } catch (again) {
        out.push({ message: (again as Error).message });
        return [];
      }
    }
  };
  let { history, problems } = readKeyHistory(genesis, read(false));
  const tailKeys = opts.tail !== false && opts.commitKeys?.length ? opts.commitKeys : undefined;
  try {
    const opened = checkedTree(store, origin, history, files, tailKeys);
    if (opened.tailTagged && opened.range.size > opened.signed) ({ history, problems } = readKeyHistory(genesis, read(true)));
  } catch (e) {
    out.push({ message: `the log's signed state cannot be trusted: ${(e as Error).message}` });
  }
  out.push(...problems.map((p) => ({ seq: p.seq, message: p.message })));
  const cur = history.current.keys;
  if (!(cur.length === files.length && cur.every((k) => files.some((f) => sameKey(k, f))))) {
    out.push({ message: "the key files are not the keys this log's history says sign now (changed without `vouch keys rotate`?)" });
  }
  for (const p of checkHandovers(store, history)) out.push(p);
  return { keys: { origin, history, verifiers: historyVerifiers(history), name: history.current.name }, problems: out };
}
