// Intent vs execution (DESIGN.md section 5): every JSON Pointer path (RFC 6901) where what ran
// differs from what was authorized, at any depth, each classified by rules. Pure: the same
// report live and under replay.
import type { Severity, DriftRules } from './drift-rules.js';
import { classifyPath, DEFAULT_DRIFT_RULES } from './drift-rules.js';
// A path names the executed payload's keys, caller-written: each segment is a recorded label (its
// credentials redacted) before it is escaped, which would hide `://` and `/` from the detectors (issue 35).
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';

export type DriftOp = 'add' | 'remove' | 'replace';

export interface DriftItem {
  path: string;
  op: DriftOp;
  severity: Severity;
}

export interface DriftReport {
  /** The highest severity of any item; 'none' when nothing differs. */
  severity: Severity;
  count: number;
  counts: Record<Severity, number>;
  items: DriftItem[];
  /** Set when more than MAX_DRIFT_ITEMS differ: items holds the first ones, counts all. */
  truncated?: true;
}

/** Bounds what one entry records; severity and counts still cover every difference. */
export const MAX_DRIFT_ITEMS = 1000;

export const SEVERITY_RANK: Record<Severity, number> = { none: 0, benign: 1, suspicious: 2, critical: 3 };

/** RFC 6901 section 3: `~` is written `~0` and `/` is written `~1`. */
export function escapePointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

type Kind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'other';

function kindOf(v: unknown): Kind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'boolean' || t === 'number' || t === 'string' || t === 'object' ? t : 'other';
}

export function computeDrift(intent: unknown, executed: unknown, rules: DriftRules = DEFAULT_DRIFT_RULES): DriftReport {
  const diffs: { segments: string[]; op: DriftOp }[] = [];
  walk(intent, executed, [], diffs);
  const counts: Record<Severity, number> = { none: 0, benign: 0, suspicious: 0, critical: 0 };
  let severity: Severity = 'none';
  const items: DriftItem[] = [];
  for (const d of diffs) {
    const s = classifyPath(d.segments, rules);
    counts[s]++;
    if (SEVERITY_RANK[s] > SEVERITY_RANK[severity]) severity = s;
    if (items.length < MAX_DRIFT_ITEMS) items.push({ path: d.segments.map((k) => '/' + escapePointerSegment(recordedLabel(k))).join(''), op: d.op, severity: s });
  }
  const report: DriftReport = { severity, count: diffs.length, counts, items };
  if (diffs.length > MAX_DRIFT_ITEMS) report.truncated = true;
  return report;
}

type Task = { a: unknown; b: unknown; at: string[] } | { emit: DriftOp; at: string[] };

/**
 * Depth-first over both values, in document order (object keys sorted, as in JCS). Iterative, so
 * a deep payload cannot exhaust the stack (callers hash both values first, which bounds depth).
 */
function walk(a0: unknown, b0: unknown, root: string[], out: { segments: string[]; op: DriftOp }[]): void {
  const stack: Task[] = [{ a: a0, b: b0, at: root }];
  while (stack.length) {
    const t = stack.pop()!;
    if ('emit' in t) {
      out.push({ segments: t.at, op: t.emit });
      continue;
    }
    const { a, b, at } = t;
    const ka = kindOf(a);
    const kb = kindOf(b);
    const children: Task[] = [];
    if (ka !== kb) {
      // A type change is one change at that path: its old and new insides are not comparable.
      children.push({ emit: 'replace', at });
    } else if (ka === 'array') {
      // Index by index: a reorder shows as changes at the indices that moved.
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const p = [...at, String(i)];
        children.push(i >= x.length ? { emit: 'add', at: p } : i >= y.length ? { emit: 'remove', at: p } : { a: x[i], b: y[i], at: p });
      }
    } else if (ka === 'object') {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        const p = [...at, k];
        children.push(!Object.hasOwn(x, k) ? { emit: 'add', at: p } : !Object.hasOwn(y, k) ? { emit: 'remove', at: p } : { a: x[k], b: y[k], at: p });
      }
    } else if (a !== b) {
      children.push({ emit: 'replace', at });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}
