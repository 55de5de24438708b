// What changed at each drift path: the authorized and the executed value, read from the intent
// and executed payloads (never stored in an entry: entries keep paths, payloads stay erasable).
// Where a redactor acted on the authorized value, both sides are shown as digests only.
import { digestJson, type Digest } from '../canonical/index.js';
import type { DriftItem } from './drift.js';

export interface DriftValue extends DriftItem {
  /** The authorized value at the path (absent when the path was added, or shown as a digest). */
  authorized?: unknown;
  executed?: unknown;
  authorizedDigest?: Digest;
  executedDigest?: Digest;
  /** A redactor changed the authorized value here: its values are not shown, only digests. */
  redacted?: true;
}

/** RFC 6901 pointer text -> segments. */
export function pointerSegments(path: string): string[] {
  if (path === '') return [];
  return path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a path, or `absent`. */
function at(v: unknown, segs: string[]): { found: true; value: unknown } | { found: false } {
  let cur = v;
  for (const s of segs) {
    if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(s) && Number(s) < cur.length) cur = cur[Number(s)];
    else if (typeof cur === 'object' && cur !== null && !Array.isArray(cur) && Object.hasOwn(cur, s)) cur = (cur as Record<string, unknown>)[s];
    else return { found: false };
  }
  return { found: true, value: cur };
}

const same = (a: { found: boolean; value?: unknown }, b: { found: boolean; value?: unknown }) =>
  a.found === b.found && (!a.found || digestJson(a.value) === digestJson(b.value));

/**
 * Each drift item with its two values. `input` is the decision's input before the chain ran:
 * where it differs from the intent at the item's path (or any part of it), a redactor acted
 * there. Without the input (erased, or not given) every value is shown as a digest: fail closed.
 */
export function driftValues(items: readonly DriftItem[], intent: unknown, executed: unknown, input: { value: unknown } | undefined): DriftValue[] {
  return items.map((i) => {
    const segs = pointerSegments(i.path);
    const a = at(intent, segs);
    const b = at(executed, segs);
    const redacted = input === undefined || redactedAlong(input.value, intent, segs);
    const out: DriftValue = { ...i };
    if (redacted) {
      out.redacted = true;
      if (a.found) out.authorizedDigest = digestJson(a.value);
      if (b.found) out.executedDigest = digestJson(b.value);
    } else {
      if (a.found) out.authorized = a.value;
      if (b.found) out.executed = b.value;
    }
    return out;
  });
}

/** Whether input and intent differ at the path or at any prefix of it (a redacted key renames its subtree). */
function redactedAlong(input: unknown, intent: unknown, segs: string[]): boolean {
  for (let n = segs.length; n >= 0; n--) {
    const x = at(input, segs.slice(0, n));
    const y = at(intent, segs.slice(0, n));
    if (x.found && y.found) return !same(x, y);
    if (x.found !== y.found) return true;
  }
  return true;
}
