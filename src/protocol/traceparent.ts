// W3C Trace Context (traceparent, tracestate) from an MCP request: `params._meta` (MCP 2026-07-28
// basic/index.mdx "OpenTelemetry trace context", and 2025 callers alike), or the HTTP headers.
// Pure parsing, no tracing SDK: the core records it, adapters export it. An invalid value is
// ignored, as the W3C spec says (it names no trace: nothing to continue). `baggage` is neither
// read nor recorded: it is the caller's application data (user and tenant ids, up to 8 KB by
// W3C Baggage), nothing a span needs, and an entry is signed for ever.
import { parseTracestate } from './tracestate.js';

export interface TraceParent {
  /** 32 lowercase hex, not all zero. */
  traceId: string;
  /** The caller's span (our span's parent): 16 lowercase hex, not all zero. */
  spanId: string;
  /** Trace flags byte (bit 0: sampled). */
  flags: number;
  /** The normalized header value, as recorded in the entry. */
  header: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export function parseTraceparent(v: unknown): TraceParent | undefined {
  if (typeof v !== 'string' || v.length > 512) return undefined;
  const m = TRACEPARENT.exec(v.trim().toLowerCase());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  // Version ff is invalid; version 00 has exactly four fields; later versions may add fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16), header: `00-${traceId}-${spanId}-${flags}` };
}

/** The traceparent an MCP request carries in `_meta`, else the transport's (HTTP header). */
export function traceparentOf(meta: Record<string, unknown> | undefined, header?: string | null): TraceParent | undefined {
  return parseTraceparent(meta?.traceparent) ?? parseTraceparent(header ?? undefined);
}

/** The caller's trace context: its traceparent, and the tracestate that came with it. */
export interface TraceContext extends TraceParent {
  /** Normalized and bounded (tracestate.ts); absent when none came with the traceparent or it did not parse. */
  tracestate?: string;
}

/**
 * The trace context of a request: `_meta`'s when its traceparent is valid, else the transport's
 * (HTTP headers). A tracestate is taken only from the carrier whose traceparent is used (W3C
 * 3.3.1: a tracestate without its traceparent is not parsed), never mixed across the two.
 */
export function traceContextOf(meta: Record<string, unknown> | undefined, headers?: { traceparent?: string | null; tracestate?: string | null }): TraceContext | undefined {
  const fromMeta = parseTraceparent(meta?.traceparent);
  const carrier = fromMeta ? { tp: fromMeta, ts: meta?.tracestate } : { tp: parseTraceparent(headers?.traceparent ?? undefined), ts: headers?.tracestate };
  if (!carrier.tp) return undefined;
  const tracestate = parseTracestate(carrier.ts);
  return tracestate === undefined ? carrier.tp : { ...carrier.tp, tracestate };
}
