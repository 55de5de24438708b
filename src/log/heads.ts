// The `heads` header field of an entry (state-heads.ts says what it is for): its format, how it
// grows, and its shape check. No imports: entry.ts validates it when it decodes an entry.
export type StateType = 'erasure' | 'key' | 'pin' | 'policy';
export const STATE_TYPES: readonly StateType[] = ['erasure', 'key', 'pin', 'policy'];

/** [count, newest seq] per state type; a type the log holds none of is absent. */
export type Heads = Partial<Record<StateType, [number, number]>>;

/** The SQLite partial index each state type's rows are read through (named in findings). */
export const STATE_INDEX: Partial<Record<StateType, string>> = { key: 'entries_key', pin: 'entries_pin', policy: 'entries_policy' };

export const EMPTY_HEADS: Heads = Object.freeze({});

const isState = (t: string): t is StateType => (STATE_TYPES as readonly string[]).includes(t);

/** The heads after appending an entry of `type` at `seq` to a log whose heads are `h`. */
export function nextHeads(h: Heads, type: string, seq: number): Heads {
  if (!isState(type)) return h;
  return { ...h, [type]: [(h[type]?.[0] ?? 0) + 1, seq] };
}

/** Whether a value is a well-formed heads object naming nothing at or after `seq`'s successor. */
export function isHeads(v: unknown, seq: number): v is Heads {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const [k, x] of Object.entries(v)) {
    if (!isState(k) || !Array.isArray(x) || x.length !== 2) return false;
    const [n, s] = x as unknown[];
    if (!Number.isSafeInteger(n) || !Number.isSafeInteger(s) || (n as number) < 1 || (s as number) < (n as number) - 1 || (s as number) > seq) return false;
  }
  return true;
}

/** An entry's heads; undefined for an entry written before heads existed. */
export function headsOf(e: { heads?: unknown }): Heads | undefined {
  return e.heads === undefined ? undefined : (e.heads as Heads);
}

export function sameHeads(a: Heads, b: Heads): boolean {
  for (const t of STATE_TYPES) {
    const x = a[t];
    const y = b[t];
    if (x === undefined || y === undefined ? x !== y : x[0] !== y[0] || x[1] !== y[1]) return false;
  }
  return true;
}

export const headsText = (h: Heads): string => JSON.stringify(h);

