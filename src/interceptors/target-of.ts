// The target of a decision, as a name a person reads: the tool or prompt name, the resource URI.
// Names are not secrets, arguments are: only these fields are ever taken, never arguments, and
// each as a recorded label (no credential, no invisible character: builtin/recorded-text.ts). Pure,
// so replay recomputes the same target from the same payload (audit/replay.ts checks it).
import { recordedLabel } from './builtin/recorded-text.js';
import type { Phase } from './types.js';

/** Longer names are cut (by code point) and end in an ellipsis: an entry field stays small. */
export const MAX_TARGET_CHARS = 512;

const BY_NAME = new Set(['tools/call', 'prompts/get']);
const BY_URI = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The payload's params: the payload itself, or a whole JSON-RPC message's `params`. */
function paramsOf(payload: unknown): Record<string, unknown> | undefined {
  if (!isRecord(payload)) return undefined;
  return typeof payload.jsonrpc === 'string' && isRecord(payload.params) ? payload.params : payload;
}

function bounded(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  const label = recordedLabel(s, MAX_TARGET_CHARS);
  return label.length === 0 ? undefined : label;
}

/**
 * The target named by one payload of `event`, or undefined (other events, or no such field). A
 * response names none: its `name`, `uri` or `params` are the answer's content, which the far side
 * (or a caller asking about a response) chooses, so a request-shaped answer cannot put a tool's name
 * on an allow. The request decision it answers (`authorization`) names the target.
 */
export function targetOf(event: string, payload: unknown, phase: Phase = 'request'): string | undefined {
  if (phase !== 'request') return undefined;
  const p = paramsOf(payload);
  if (!p) return undefined;
  if (BY_NAME.has(event)) return bounded(p.name);
  if (BY_URI.has(event)) return bounded(p.uri);
  if (event === 'completion/complete' && isRecord(p.ref)) return bounded(p.ref.name) ?? bounded(p.ref.uri);
  return undefined;
}

interface ChainTrace {
  results: readonly { interceptor: string; type: string; payload?: unknown }[];
}

/**
 * The target a decision entry records. An allow names it from the authorized payload (after
 * every redactor). A deny names it from the input only when every mutation interceptor hooked on
 * the call ran and left the name as it was: a redactor that did not run (the call was refused
 * before it) might have hidden part of it, so then nothing is recorded.
 */
export function decisionTarget(a: { event: string; phase: Phase; effect: 'allow' | 'deny'; input: unknown; finalPayload: unknown; chain: ChainTrace; mutators: readonly string[] }): string | undefined {
  if (a.effect === 'allow') return targetOf(a.event, a.finalPayload, a.phase);
  const t = targetOf(a.event, a.input, a.phase);
  if (t === undefined) return undefined;
  for (const m of a.mutators) {
    const r = a.chain.results.find((x) => x.interceptor === m && x.type === 'mutation');
    if (!r || !('payload' in r) || targetOf(a.event, r.payload, a.phase) !== t) return undefined;
  }
  return t;
}
