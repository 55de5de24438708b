// A bounded memo of Cedar's answers, keyed by the exact engine request (policy set, entities,
// context cut to what the policies read: context-needs.ts). Evaluation is a pure function of
// that request, so a hit gives the answer the engine would. One memo per process, shared by every
// policy set, so memory stays bounded whatever the number of tenants: at most MEMO_ENTRIES
// answers, each with its key and reasons at most MEMO_ANSWER_CHARS characters in all. A caller who
// sends a new request each time only misses.
import type { AuthzResult } from './types.js';

export const MEMO_ENTRIES = 4096;
export const MEMO_ANSWER_CHARS = 2048;

const memo = new Map<string, AuthzResult>();

/** A copy: callers put the arrays into entries of their own. */
function copyOf(r: AuthzResult): AuthzResult {
  return { decision: r.decision, reasons: [...r.reasons], errors: [...r.errors] };
}

export function recallDecision(key: string): AuthzResult | undefined {
  const r = memo.get(key);
  if (r === undefined) return undefined;
  // Least recently used goes first: a hit moves to the end of the Map's order.
  memo.delete(key);
  memo.set(key, r);
  return copyOf(r);
}

export function rememberDecision(key: string, r: AuthzResult): void {
  let chars = key.length;
  for (const id of r.reasons) chars += id.length;
  if (chars > MEMO_ANSWER_CHARS) return;
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
  memo.set(key, copyOf(r));
}

/** How many answers are held (tests and metrics). */
export function rememberedDecisions(): number {
  return memo.size;
}

/** Forget every answer (tests; and whoever wants the engine asked afresh). */
export function clearDecisionMemo(): void {
  memo.clear();
}
