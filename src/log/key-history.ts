// A log's key history (issue 18), read only from its signed `key` entries: a `rotate` entry names
// the outgoing and incoming keys and is signed into the log by the outgoing keys (the handover
// checkpoint, size seq+1); a `revoke` entry refuses a key's checkpoints after a size. Revocations
// only tighten. Folding the entries gives every key with the sizes it signs. Portable.
import { bytesEqual, fromBase64, toBase64, toHex } from '../canonical/index.js';
import { createVerifier, isSignatureAlg, noteKeyId, publicKeyLength, type SignatureAlg, type Verifier } from '../crypto/index.js';
import type { RuleFinding } from './activation-check.js';
import { decodeEntry, type Entry, type EntryBody } from './entry.js';
import type { KeyWindow } from './key-window.js';
import { isValidKeyName, noteVerifierFor, type NoteVerifier } from './note.js';

export interface PublicKey {
  alg: SignatureAlg;
  publicKey: Uint8Array;
}
export interface KeySet {
  /** The note key name these keys sign under (the log's origin for logs made since issue 18). */
  name: string;
  keys: PublicKey[];
}
export interface HistoryKey extends PublicKey {
  name: string;
  /** C2SP key id under `name`, hex. */
  keyId: string;
  window: KeyWindow;
  /** The `key` entries that started, retired and revoked it. */
  rotatedIn?: number;
  rotatedOut?: number;
  revokedBy?: number;
}
export interface KeyHistory {
  keys: HistoryKey[];
  /** The set signing now (the last epoch). */
  current: KeySet;
}

const wire = (k: PublicKey) => ({ alg: k.alg, publicKey: toBase64(k.publicKey) });

// `by` (who asked: a principal, `cli:<user>`) is a record for people, as in policy and erasure
// entries; the fold below reads only the fields it names, so entries with and without it verify alike.
export function rotateEntryBody(time: string, previous: KeySet, next: KeySet, by?: string): EntryBody {
  return { type: 'key', time, action: 'rotate', previous: { name: previous.name, keys: previous.keys.map(wire) }, name: next.name, keys: next.keys.map(wire), ...(by !== undefined && { by }) };
}

export function revokeEntryBody(time: string, key: PublicKey, after: number, by?: string): EntryBody {
  return { type: 'key', time, action: 'revoke', key: wire(key), after, ...(by !== undefined && { by }) };
}

function readKey(v: unknown): PublicKey {
  const o = v as { alg?: unknown; publicKey?: unknown } | null;
  if (!o || !isSignatureAlg(o.alg) || typeof o.publicKey !== 'string') throw new Error('a key must be {alg, publicKey}');
  const publicKey = fromBase64(o.publicKey);
  if (publicKey.length !== publicKeyLength(o.alg)) throw new Error(`${o.alg} key of ${publicKey.length} bytes`);
  return { alg: o.alg, publicKey };
}

function readSet(name: unknown, keys: unknown): KeySet {
  if (!isValidKeyName(name)) throw new Error('bad key name');
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 4) throw new Error('keys must be a list of 1-4 keys');
  const set = { name, keys: keys.map(readKey) };
  if (!set.keys.some((k) => k.alg === 'ML-DSA-65')) throw new Error('a key set needs an ML-DSA-65 key');
  return set;
}

export const sameKey = (a: PublicKey, b: PublicKey): boolean => a.alg === b.alg && bytesEqual(a.publicKey, b.publicKey);
export const sameSet = (a: KeySet, b: KeySet): boolean =>
  a.name === b.name && a.keys.length === b.keys.length && a.keys.every((k) => b.keys.some((x) => sameKey(k, x)));

/**
 * Folds `key` entries (in seq order) into a history. `genesis` is the set a log with no rotation
 * signs with (the data directory's key files); the first rotation names the log's real first set.
 * `check` mode (log verify, over every entry) reports malformed or unchained entries as findings.
 */
export class KeyHistoryFold {
  private epochs: { set: KeySet; from: number; entry?: number }[] = [];
  private revoked = new Map<string, { after: number; seq: number }>();
  readonly problems: RuleFinding[] = [];
  private rotations = 0;

  constructor(private readonly genesis: KeySet) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type !== 'key') return undefined;
    const bad = (message: string): RuleFinding => {
      const f: RuleFinding = { kind: 'key', seq: e.seq, message: `key entry ${e.seq}: ${message}` };
      this.problems.push(f);
      return f;
    };
    try {
      if (e.by !== undefined && (typeof e.by !== 'string' || e.by === '')) return bad('by must be a non-empty string');
      if (e.action === 'rotate') {
        const prev = readSet((e.previous as { name?: unknown })?.name, (e.previous as { keys?: unknown })?.keys);
        const next = readSet(e.name, e.keys);
        if (this.rotations++ === 0) this.epochs = [{ set: prev, from: 0 }];
        const cur = this.epochs[this.epochs.length - 1];
        if (!sameSet(cur.set, prev)) return bad('rotation names outgoing keys that are not the keys in force');
        this.epochs.push({ set: next, from: e.seq + 1, entry: e.seq });
        return undefined;
      }
      if (e.action === 'revoke') {
        const key = readKey(e.key);
        if (!Number.isSafeInteger(e.after) || (e.after as number) < 0) return bad('after must be a tree size');
        const id = `${key.alg} ${toHex(key.publicKey)}`;
        if (!this.allSets().some((s) => s.keys.some((k) => sameKey(k, key)))) return bad('revokes a key that is not in the history');
        const was = this.revoked.get(id);
        if (!was || (e.after as number) < was.after) this.revoked.set(id, { after: e.after as number, seq: e.seq });
        return undefined;
      }
      return bad(`unknown action ${JSON.stringify(e.action)}`);
    } catch (err) {
      return bad((err as Error).message);
    }
  }

  private allSets(): KeySet[] {
    return this.epochs.length ? this.epochs.map((x) => x.set) : [this.genesis];
  }

  history(): KeyHistory {
    const epochs = this.epochs.length ? this.epochs : [{ set: this.genesis, from: 0 }];
    const keys: HistoryKey[] = [];
    epochs.forEach((ep, i) => {
      const next = epochs[i + 1];
      for (const k of ep.set.keys) {
        const r = this.revoked.get(`${k.alg} ${toHex(k.publicKey)}`);
        const window: KeyWindow = { from: ep.from, ...(next ? { to: next.from } : {}), ...(r ? { revokedAfter: r.after } : {}) };
        keys.push({ ...k, name: ep.set.name, keyId: toHex(noteKeyId(ep.set.name, k.alg, k.publicKey)), window, rotatedIn: ep.entry, rotatedOut: next?.entry, revokedBy: r?.seq });
      }
    });
    return { keys, current: epochs[epochs.length - 1].set };
  }
}

/** The history from a log's `key` entries (its partial index, or any iterable of stored entries). */
export function readKeyHistory(genesis: KeySet, entries: Iterable<{ bytes: Uint8Array }>): { history: KeyHistory; problems: RuleFinding[] } {
  const fold = new KeyHistoryFold(genesis);
  for (const s of entries) fold.visit(decodeEntry(s.bytes));
  return { history: fold.history(), problems: fold.problems };
}

/** Note verifiers for every key of the history, each with its window. */
export function historyVerifiers(h: KeyHistory, make: (alg: SignatureAlg, publicKey: Uint8Array) => Verifier = createVerifier): NoteVerifier[] {
  return h.keys.map((k) => ({ ...noteVerifierFor(k.name, make(k.alg, k.publicKey)), window: k.window }));
}

/**
 * log verify's check over every entry: the history folded from all entries must be the one the
 * verifier used (read through the `key` entry index). A difference means the index or the entries
 * were tampered with.
 */
export function keyHistoryCheck(genesis: KeySet, used: KeyHistory): { visit(e: Entry): RuleFinding | undefined; end(): RuleFinding[] } {
  const fold = new KeyHistoryFold(genesis);
  return {
    visit: (e) => fold.visit(e),
    end: () => {
      const h = fold.history();
      const sig = (x: KeyHistory) => JSON.stringify(x.keys.map((k) => [k.name, k.alg, toHex(k.publicKey), k.window]));
      return sig(h) === sig(used) ? [] : [{ kind: 'key', seq: -1, message: 'the key history in the entries differs from the one read through the key entry index' }];
    },
  };
}
