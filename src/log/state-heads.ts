// Committed state (DESIGN.md section 11, issue 35): every entry the log writes carries `heads`, for
// each kind of entry the service decides or publishes by (policy, pin, key, erasure), how many the
// log holds up to and including this entry and the seq of the newest. The newest signed entry thus
// commits to the whole state: the policy in force is read by its seq (no index), and what an index
// returns for pins and keys must be exactly `count` rows ending at `seq`, or it is refused. Counts
// suffice: rows cannot be forged (each must be a leaf of the signed tree), only hidden.
import { StoreError } from '../errors.js';
import { decodeEntry, type Entry } from './entry.js';
import { EMPTY_HEADS, headsText, isHeads, nextHeads, sameHeads, STATE_INDEX, type Heads, type StateType } from './heads.js';

export { EMPTY_HEADS, headsOf, isHeads, nextHeads, sameHeads, STATE_INDEX, STATE_TYPES, type Heads, type StateType } from './heads.js';

function inconsistent(why: string): StoreError {
  return new StoreError('ERR_STORE_INCONSISTENT', why);
}

/**
 * Check rows of one state type, as an index returned them, against the committed heads: seqs
 * strictly increasing, each row an entry of that type naming its own seq, `count` of them, the
 * last at the committed seq. Throws ERR_STORE_INCONSISTENT naming the index otherwise.
 */
export function checkStateRows<R extends { seq: number; bytes: Uint8Array }>(type: StateType, rows: Iterable<R>, heads: Heads): R[] {
  const out: R[] = [];
  const where = `${type} entries read through ${STATE_INDEX[type] ?? 'the store'}`;
  let last = -1;
  for (const r of rows) {
    if (r.seq <= last) throw inconsistent(`${where} are not in seq order at ${r.seq}: the index was altered`);
    let e: Entry;
    try {
      e = decodeEntry(r.bytes);
    } catch (err) {
      throw inconsistent(`${where}: entry ${r.seq} is malformed (${(err as Error).message})`);
    }
    if (e.type !== type || e.seq !== r.seq) throw inconsistent(`${where}: row ${r.seq} is not a ${type} entry of that seq: the index was altered`);
    last = r.seq;
    out.push(r);
  }
  const [count, newest] = heads[type] ?? [0, -1];
  if (out.length !== count || last !== newest) {
    throw inconsistent(`${where}: ${out.length} rows ending at ${last}, but the signed log commits to ${count} ending at ${newest}: the index hides or adds entries (rebuild it with REINDEX ${STATE_INDEX[type] ?? ''} after restoring the file from a backup, and find out who edited it)`.replace(' )', ')'));
  }
  return out;
}

/**
 * Rebuild heads entry by entry and compare each entry's recorded heads (`vouch log verify`, the
 * background audit, bundle verification). Entries written before heads existed carry none; once
 * one does, every later one must. A range that starts past 0 cannot count what came before it: it
 * takes the first heads it meets on trust and checks every later entry against them.
 */
export class HeadsRebuild {
  /** The heads after the entries visited; undefined while unknown (a range starting past 0, before its first heads). */
  private heads: Heads | undefined;
  private seen = false;

  constructor(from = 0) {
    this.heads = from === 0 ? EMPTY_HEADS : undefined;
  }

  /** undefined when `e`'s heads are what the entries before it make; else why not. */
  visit(e: { seq: number; type: string; heads?: unknown }): string | undefined {
    const recorded = e.heads;
    if (recorded === undefined) {
      if (this.seen) return `entry ${e.seq} carries no heads, though an earlier entry did`;
      if (this.heads) this.heads = nextHeads(this.heads, e.type, e.seq);
      return undefined;
    }
    if (!isHeads(recorded, e.seq)) return `entry ${e.seq} has malformed heads`;
    this.seen = true;
    const expected = this.heads ? nextHeads(this.heads, e.type, e.seq) : recorded;
    // After a mismatch go on from what the entry says: one finding per divergence, not one per later entry.
    this.heads = recorded;
    if (!sameHeads(expected, recorded)) return `entry ${e.seq} commits to state ${headsText(recorded)}, but the entries before it make ${headsText(expected)}`;
    return undefined;
  }

  /** The heads after the entries visited, once one carried heads (else undefined). */
  get current(): Heads | undefined {
    return this.seen ? this.heads : undefined;
  }
}
