// Where an entry's span sits. A decision's continues the caller's W3C trace it records. An
// execution's sits in the trace of the call it executed: under the span of the decision that
// authorized it (remembered as that decision is exported), else, in a process that did not export
// that decision (a restart between the two), under the caller's span that decision records; an
// execution no decision authorized is a trace of its own.
import { ROOT_CONTEXT, TraceFlags, trace, type Context, type SpanContext } from '@opentelemetry/api';
import { utf8 } from '../canonical/index.js';
import { TraceState } from '@opentelemetry/core';
import { parseTraceparent, parseTracestate } from '../protocol/index.js';

/** The caller's span as our parent, from the recorded traceparent and tracestate; root context otherwise. */
export function callerContextOf(e: Record<string, unknown>): Context {
  const tp = parseTraceparent(e.traceparent);
  if (!tp) return ROOT_CONTEXT;
  // Parsed again: the entry holds it as recorded (a redacted credential is still a valid value).
  const ts = parseTracestate(e.tracestate);
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: tp.traceId, spanId: tp.spanId, traceFlags: tp.flags & TraceFlags.SAMPLED, isRemote: true, ...(ts !== undefined && { traceState: new TraceState(ts) }) });
}

/** A tenant log's entry bytes by seq (undefined when it holds none). */
export type EntryLookup = (tenant: string, seq: number) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/** Decision spans kept for their executions: executions follow their decisions within seconds; the log answers for older ones. */
const REMEMBERED = 8192;

export function createExecutionParents(entryOf: EntryLookup | undefined) {
  const spans = new Map<string, SpanContext>();
  const key = (tenant: string, seq: number) => `${tenant}\u0000${seq}`;
  const fromLog = (bytes: Uint8Array | undefined): Context => {
    if (!bytes) return ROOT_CONTEXT;
    const d = JSON.parse(utf8.decode(bytes)) as Record<string, unknown>;
    return d.type === 'decision' ? callerContextOf(d) : ROOT_CONTEXT;
  };
  return {
    remember(tenant: string, seq: number, span: SpanContext): void {
      spans.set(key(tenant, seq), span);
      if (spans.size > REMEMBERED) spans.delete(spans.keys().next().value!);
    },
    /** The parent context of an execution entry's span (a promise only when the log must be read). */
    parentOf(tenant: string, e: Record<string, unknown>): Context | Promise<Context> {
      // `authorization` is the decision the log linked (null when none counted: `claimed` holds what was claimed).
      const seq = e.authorization;
      if (typeof seq !== 'number') return ROOT_CONTEXT;
      const known = spans.get(key(tenant, seq));
      if (known) return trace.setSpanContext(ROOT_CONTEXT, known);
      if (!entryOf) return ROOT_CONTEXT;
      return new Promise<Uint8Array | undefined>((resolve) => resolve(entryOf(tenant, seq))).then(fromLog);
    },
  };
}
