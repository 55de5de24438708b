// Which authorizations already have an execution entry, per tenant log, so that a second
// execution of one authorization is flagged `repeated`. Built by reading the log once (every
// execution entry since seq 0), then only what was appended since: it survives a restart
// because the log is the source. Check and append run under one lock per log port (a Worker,
// whose ports are per request, can race two simultaneous reports: both may be `first`).
import { digestBytes } from '../canonical/index.js';
import { readEntry } from '../log/fast-entry.js';

/** What the index needs of a log: its entries and its size (the store's LogPort has both). */
export interface SizedLog {
  entry(seq: number): Promise<Uint8Array | undefined>;
  size(): Promise<number>;
}

interface Index {
  scanned: number;
  /** SHA-256 of entry `scanned - 1`: each entry names its predecessor's leaf hash, so the same bytes mean the same history. */
  tip?: string;
  /** authorization seq -> the first execution entry that named it. */
  first: Map<number, number>;
}

// The index is plain data shared by log origin (a Worker makes a new port per request), checked
// against the log's own bytes before use; the lock is per port object, so no promise crosses
// from one request to another where the runtime forbids it.
const byOrigin = new Map<string, Index>();
const byObject = new WeakMap<object, Index>();
const locks = new WeakMap<object, Promise<unknown>>();

function indexOf(log: object): Index {
  const origin = (log as { origin?: unknown }).origin;
  const fresh = (): Index => ({ scanned: 0, first: new Map() });
  if (typeof origin === 'string') {
    let i = byOrigin.get(origin);
    if (!i) byOrigin.set(origin, (i = fresh()));
    return i;
  }
  let i = byObject.get(log);
  if (!i) byObject.set(log, (i = fresh()));
  return i;
}

async function catchUp(log: SizedLog, i: Index): Promise<void> {
  if (i.scanned > 0) {
    // Another log under the same origin name (a test, a restored copy): start over.
    const last = await log.entry(i.scanned - 1);
    if (!last || digestBytes(last) !== i.tip) Object.assign(i, { scanned: 0, tip: undefined, first: new Map() });
  }
  const size = await log.size();
  let last: Uint8Array | undefined;
  try {
    for (; i.scanned < size; i.scanned++) {
      const bytes = await log.entry(i.scanned);
      if (!bytes) return; // not readable yet: try again next time
      last = bytes;
      // Entry bytes are canonical JSON, so an execution entry's bytes hold `"type":"execution"`
      // verbatim (a string value cannot: its quotes would be escaped). Without it, it is none:
      // no parse (most entries are decisions).
      if (findBytes(bytes, EXECUTION_TYPE) < 0) continue;
      let e;
      try {
        e = readEntry(bytes); // decodeEntry's contract, one parse (log/fast-entry.ts)
      } catch {
        continue;
      }
      if (e.type === 'execution' && typeof e.authorization === 'number' && !i.first.has(e.authorization)) i.first.set(e.authorization, e.seq);
    }
  } finally {
    if (last) i.tip = digestBytes(last); // only the newest entry read names the history
  }
}

const EXECUTION_TYPE = new TextEncoder().encode('"type":"execution"');
/** Where `needle` first occurs in `hay`, or -1 (the typed array's own indexOf finds each candidate start). */
function findBytes(hay: Uint8Array, needle: Uint8Array): number {
  for (let i = hay.indexOf(needle[0]); i >= 0 && i + needle.length <= hay.length; i = hay.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

export const hasSize = (log: object): log is SizedLog => typeof (log as { size?: unknown }).size === 'function';

/**
 * Run `fn` with the seq of an earlier execution of `authorization` (or undefined), under the
 * log's lock, so that two reports of one authorization cannot both be the first.
 */
export async function withExecutions<T extends { seq: number }>(log: SizedLog, authorization: number | null, fn: (earlier: number | undefined) => Promise<T>): Promise<T> {
  const run = (locks.get(log) ?? Promise.resolve()).then(async () => {
    const i = indexOf(log);
    await catchUp(log, i);
    const out = await fn(authorization === null ? undefined : i.first.get(authorization));
    if (authorization !== null && !i.first.has(authorization)) i.first.set(authorization, out.seq);
    return out;
  });
  locks.set(log, run.catch(() => undefined));
  return run;
}
