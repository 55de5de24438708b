// The target of a decision, as a name a person reads: the tool or prompt name, the resource URI.
// Names are not secrets, arguments are: only these fields are ever taken, never arguments. Pure,
// so replay recomputes the same target from the same payload (audit/replay.ts checks it).

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
  if (typeof s !== 'string' || s.length === 0) return undefined;
  const cps = Array.from(s);
  return cps.length <= MAX_TARGET_CHARS ? s : cps.slice(0, MAX_TARGET_CHARS).join('') + '\u2026';
}

/** The target named by one payload of `event`, or undefined (other events, or no such field). */
export function targetOf(event: string, payload: unknown): string | undefined {
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
export function decisionTarget(a: { event: string; effect: 'allow' | 'deny'; input: unknown; finalPayload: unknown; chain: ChainTrace; mutators: readonly string[] }): string | undefined {
  if (a.effect === 'allow') return targetOf(a.event, a.finalPayload);
  const t = targetOf(a.event, a.input);
  if (t === undefined) return undefined;
  for (const m of a.mutators) {
    const r = a.chain.results.find((x) => x.interceptor === m && x.type === 'mutation');
    if (!r || !('payload' in r) || targetOf(a.event, r.payload) !== t) return undefined;
  }
  return t;
}
