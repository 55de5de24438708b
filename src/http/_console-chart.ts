// The audit console's timeline and breakdowns over the rows a filter matches: allow/deny per time
// bucket, the same buckets split by tool and by principal (the top few, the rest summed), and the
// per-tool and per-principal totals. Portable; keys are caller-chosen text the page shows as text.
import type { ConsoleRow } from './_console-rows.js';

const BUCKETS_MS = [1e3, 1e4, 6e4, 3e5, 9e5, 36e5, 216e5, 864e5, 6048e5];
const MAX_BUCKETS = 48;
/** Keys drawn as their own series in the timeline; the rest are summed into one. */
const SERIES_KEYS = 5;
/** Keys listed in a breakdown table; the rest are summed into one line. */
const TABLE_KEYS = 10;

/** Decisions of one key (a tool or a principal; null: the rows that name none). */
export interface Tally {
  key: string | null;
  allow: number;
  deny: number;
}

/** The top keys by decisions, and what the others add up to. */
export interface Breakdown {
  top: Tally[];
  rest: { keys: number; allow: number; deny: number } | null;
}

/** One split of the timeline: `counts[bucket][i]` decisions of `keys[i]`; with `other`, the last column sums every other key. */
export interface Series {
  keys: (string | null)[];
  other: boolean;
  counts: number[][];
}

export interface Chart {
  bucketMs: number;
  start: string | null;
  buckets: { allow: number; deny: number }[];
  by: { tool: Series; principal: Series };
}

type Field = 'target' | 'principal';

/** Decisions (rows with an effect) per key, most first; ties by key, so the answer is stable. */
function tallies(rows: ConsoleRow[], field: Field): Tally[] {
  const m = new Map<string | null, Tally>();
  for (const r of rows) {
    if (!r.effect) continue;
    const k = r[field];
    let t = m.get(k);
    if (!t) m.set(k, (t = { key: k, allow: 0, deny: 0 }));
    t[r.effect]++;
  }
  return [...m.values()].sort((a, b) => b.allow + b.deny - (a.allow + a.deny) || String(a.key).localeCompare(String(b.key)));
}

export function breakdownOf(rows: ConsoleRow[], field: Field): Breakdown {
  const all = tallies(rows, field);
  const rest = all.slice(TABLE_KEYS);
  return {
    top: all.slice(0, TABLE_KEYS),
    rest: rest.length ? { keys: rest.length, allow: rest.reduce((n, t) => n + t.allow, 0), deny: rest.reduce((n, t) => n + t.deny, 0) } : null,
  };
}

function seriesOf(rows: ConsoleRow[], field: Field, bucket: (number | undefined)[], n: number): Series {
  const keys = tallies(rows, field).map((t) => t.key);
  const shown = keys.slice(0, SERIES_KEYS);
  const other = keys.length > SERIES_KEYS;
  const index = new Map(shown.map((k, i) => [k, i]));
  const counts = Array.from({ length: n }, () => new Array<number>(shown.length + (other ? 1 : 0)).fill(0));
  rows.forEach((r, i) => {
    const b = bucket[i];
    if (b !== undefined) counts[b][index.get(r[field]) ?? shown.length]++;
  });
  return { keys: shown, other, counts };
}

/** Allow/deny counts per time bucket over the rows: the smallest bucket width giving at most 48 bars. */
export function chartOf(rows: ConsoleRow[]): Chart {
  // Each row's time read once; min and max without spreading (a log's worth of arguments overflows the stack).
  const times = rows.map((r) => (r.effect ? Date.parse(r.time) : NaN));
  let min = Infinity;
  let max = -Infinity;
  for (const t of times) {
    if (Number.isNaN(t)) continue;
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const empty: Series = { keys: [], other: false, counts: [] };
  if (min === Infinity) return { bucketMs: BUCKETS_MS[0], start: null, buckets: [], by: { tool: empty, principal: empty } };
  const bucketMs = BUCKETS_MS.find((b) => Math.floor(max / b) - Math.floor(min / b) < MAX_BUCKETS) ?? BUCKETS_MS[BUCKETS_MS.length - 1];
  const start = Math.floor(min / bucketMs) * bucketMs;
  const n = Math.floor((max - start) / bucketMs) + 1;
  const bucket = times.map((t) => (Number.isNaN(t) ? undefined : Math.floor((t - start) / bucketMs)));
  const buckets = Array.from({ length: n }, () => ({ allow: 0, deny: 0 }));
  rows.forEach((r, i) => {
    const b = bucket[i];
    if (b !== undefined) buckets[b][r.effect!]++;
  });
  return { bucketMs, start: new Date(start).toISOString(), buckets, by: { tool: seriesOf(rows, 'target', bucket, n), principal: seriesOf(rows, 'principal', bucket, n) } };
}
