// W3C Trace Context (traceparent) from an MCP request: `params._meta.traceparent`, or the HTTP
// `traceparent` header. Pure parsing, no tracing SDK: the core records it, adapters export it.
// An invalid value is ignored, as the W3C spec says (it names no trace: nothing to continue).

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
