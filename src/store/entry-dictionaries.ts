// The preset dictionaries of one SQLite log file (table entry_dictionaries, migration 0008): read
// by id for any reader (each checked against the digest fixed when it was written), and made by
// the writer from the log's own entries, so the next entries compress against their own shapes.
import type Database from 'better-sqlite3';
import { bytesEqual, sha256 } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { mayCompress, type EntryDictionary } from './entry-codec.js';

/** Entries a dictionary is made of: the newest compressible ones, oldest first. */
const SAMPLE = 4;
/** DEFLATE looks back 32 KiB: a longer dictionary is only its tail. */
const MAX_DICT_BYTES = 32 * 1024;
/** A new dictionary (the policy changed) at most once per this many entries: at most 32 KiB per 1024 entries, typically 8 B an entry. */
const MIN_SPAN = 1024;
const POLICY = Buffer.from('"type":"policy"');

export class EntryDictionaries {
  private readonly cache = new Map<number, EntryDictionary>();
  private readonly byId: Database.Statement | undefined;
  // Writer state, loaded on first write: the dictionary new rows use, from which seq, and
  // whether a policy entry came after it (its chain and policy-set digests are in no dictionary).
  private writer: { current?: EntryDictionary; from: number; policyAfter: boolean; sample: Uint8Array[] } | undefined;

  constructor(private readonly db: Database.Database, exists: boolean, private readonly latestPolicySeq: () => number | undefined) {
    this.byId = exists ? db.prepare('SELECT id, digest, bytes FROM entry_dictionaries WHERE id = ?') : undefined;
  }

  /** Dictionary `id`, or undefined if not stored; one whose bytes are not its digest's throws. */
  get(id: number): EntryDictionary | undefined {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const r = this.byId?.get(id) as { id: number; digest: Buffer; bytes: Buffer } | undefined;
    if (!r) return undefined;
    const bytes = new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
    if (!bytesEqual(sha256(bytes), new Uint8Array(r.digest))) {
      throw new StoreError('ERR_STORE_INCONSISTENT', `entry dictionary ${id}: its bytes are not the ones written (digest mismatch): the log file was edited or damaged (\`vouch log verify\`; restore it from a backup)`);
    }
    const d = { id, bytes };
    this.cache.set(id, d);
    return d;
  }

  /**
   * The dictionary to encode entry `seq` with (called in seq order, inside the commit's
   * transaction): makes a new one from the last few entries when there is none yet, or when the
   * policy changed and at least MIN_SPAN entries passed since the current one began.
   */
  forEntry(seq: number, bytes: Uint8Array): EntryDictionary | undefined {
    const w = (this.writer ??= this.loadWriter());
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(POLICY)) {
      w.policyAfter = true;
      w.sample = []; // the next dictionary is made of entries under the new policy
    } else if (mayCompress(bytes)) {
      w.sample.push(bytes);
      if (w.sample.length > SAMPLE) w.sample.shift();
    }
    const due = !w.current || (w.policyAfter && seq - w.from >= MIN_SPAN);
    if (due && w.sample.length === SAMPLE) this.make(w, seq);
    return w.current;
  }

  /** The commit that made a dictionary rolled back: forget what this writer thought it wrote. */
  reset(): void {
    if (this.writer?.current) this.cache.delete(this.writer.current.id);
    this.writer = undefined;
  }

  private make(w: NonNullable<typeof this.writer>, seq: number): void {
    const all = Buffer.concat(w.sample);
    const bytes = new Uint8Array(all.subarray(Math.max(0, all.byteLength - MAX_DICT_BYTES)));
    const id = (w.current?.id ?? 0) + 1;
    this.db.prepare('INSERT INTO entry_dictionaries (id, from_seq, digest, bytes) VALUES (?, ?, ?, ?)').run(id, seq, sha256(bytes), bytes);
    w.current = { id, bytes };
    w.from = seq;
    w.policyAfter = false;
  }

  private loadWriter(): NonNullable<typeof this.writer> {
    const r = this.db.prepare('SELECT id, from_seq FROM entry_dictionaries ORDER BY id DESC LIMIT 1').get() as { id: number; from_seq: number } | undefined;
    if (!r) return { from: 0, policyAfter: false, sample: [] };
    const policy = this.latestPolicySeq();
    return { current: this.get(r.id), from: r.from_seq, policyAfter: policy !== undefined && policy > r.from_seq, sample: [] };
  }
}
