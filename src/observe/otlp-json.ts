// OTLP/HTTP (JSON) export of log entries without the OTel SDK, for the Worker (portable: fetch and
// Web Crypto only). The same span and log record per entry as Node's exporter (otel.ts): name,
// attributes (entry-attributes.ts), status, the caller's W3C trace as parent with its tracestate,
// an execution under the span of the decision that authorized it. Span ids are derived from the
// entry (tenant, seq, the digest of its bytes), so an isolate that never saw the decision finds
// its span from the log alone. Entries queue in memory; `flush` (run from ctx.waitUntil, after the
// answer) sends them. Failures are counted, never thrown.
import { concatBytes, sha256, toHex, utf8 } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import { parseTraceparent, parseTracestate } from '../protocol/index.js';
import { entryAttributes, type EntryAttributes, type ObservedEntry } from './entry-attributes.js';

export type OtlpSignal = 'traces' | 'logs';

export interface OtlpJsonOptions {
  /** The collector's OTLP/HTTP base URL: /v1/traces and /v1/logs are appended. */
  url: URL;
  serviceName?: string;
  serviceVersion?: string;
  /** A tenant log's entry bytes by seq: an execution's authorizing decision. */
  entryOf?: (tenant: string, seq: number) => Promise<Uint8Array | undefined>;
  onExportError?: (signal: OtlpSignal, items: number, error: string) => void;
  timeoutMs?: number;
  /** Entries held at most; beyond, the oldest are dropped and counted as failed. */
  maxQueue?: number;
}

export interface OtlpJsonExporter {
  /** Never throws and never waits: the entry is queued. */
  observe(e: ObservedEntry): void;
  /** Send what is queued (both signals); resolves when done, never rejects. */
  flush(): Promise<void>;
}

/** A collector base URL: http(s) only, no credentials in it (they would end up in logs). `what` names the option or var. */
export function parseCollectorUrl(url: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('ERR_CONFIG', `${what}: not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError('ERR_CONFIG', `${what}: only http(s) collectors are supported, not ${u.protocol}`);
  if (u.username || u.password) throw new ConfigError('ERR_CONFIG', `${what}: credentials in the URL are not accepted`);
  return u;
}

type Entry = Record<string, unknown>;
interface SpanOut {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
}

const SPAN_KIND_INTERNAL = 1;
const STATUS_ERROR = 2;
const SEVERITY = { INFO: 9, WARN: 13 } as const;

const decode = (bytes: Uint8Array): Entry => {
  try {
    const v = JSON.parse(utf8.decode(bytes));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

/** An entry's own ids: deterministic, so an execution exported elsewhere finds its decision's span. */
function idsOf(tenant: string, seq: number, bytes: Uint8Array): { spanId: string; traceId: string } {
  const h = toHex(sha256(concatBytes(utf8.encode(`vouch otlp span\u0000${tenant}\u0000${seq}\u0000`), sha256(bytes))));
  return { spanId: h.slice(0, 16), traceId: h.slice(16, 48) };
}

/** The caller's span recorded in an entry (traceparent, tracestate), if any. */
function callerOf(e: Entry): { traceId: string; spanId: string; traceState?: string } | undefined {
  const tp = parseTraceparent(e.traceparent);
  if (!tp) return undefined;
  const ts = parseTracestate(e.tracestate);
  return { traceId: tp.traceId, spanId: tp.spanId, ...(ts !== undefined && { traceState: ts }) };
}

function otlpValue(v: string | number | boolean | string[]): Record<string, unknown> {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => ({ stringValue: x })) } };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { stringValue: v };
}
const otlpAttributes = (a: EntryAttributes) => Object.entries(a).map(([key, value]) => ({ key, value: otlpValue(value) }));
const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

export function createOtlpJsonExporter(opts: OtlpJsonOptions): OtlpJsonExporter {
  const base = `${opts.url.origin}${opts.url.pathname.replace(/\/+$/, '')}`;
  const resource = { attributes: otlpAttributes({ 'service.name': opts.serviceName ?? 'vouch', 'service.version': opts.serviceVersion ?? '0.1.0' }) };
  const scope = { name: 'vouch', version: opts.serviceVersion ?? '0.1.0' };
  const maxQueue = opts.maxQueue ?? 2048;
  let queue: ObservedEntry[] = [];

  /** Where an entry's span sits: the caller's span; an execution under its decision's span (read from the log when needed). */
  async function placeOf(o: ObservedEntry, e: Entry): Promise<SpanOut> {
    const own = idsOf(o.tenant, o.seq, o.bytes);
    let parent: { traceId: string; spanId: string; traceState?: string } | undefined;
    if (e.type === 'execution' && typeof e.authorization === 'number' && opts.entryOf) {
      const bytes = await opts.entryOf(o.tenant, e.authorization).catch(() => undefined);
      const d = bytes && decode(bytes);
      if (d && d.type === 'decision') {
        const ids = idsOf(o.tenant, e.authorization, bytes);
        const caller = callerOf(d);
        parent = { traceId: caller?.traceId ?? ids.traceId, spanId: ids.spanId, ...(caller?.traceState !== undefined && { traceState: caller.traceState }) };
      }
    } else if (e.type !== 'execution') parent = callerOf(e);
    return parent ? { traceId: parent.traceId, spanId: own.spanId, parentSpanId: parent.spanId, ...(parent.traceState !== undefined && { traceState: parent.traceState }) } : own;
  }

  async function post(signal: OtlpSignal, body: unknown, items: number): Promise<void> {
    try {
      const res = await fetch(`${base}/v1/${signal}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000), redirect: 'manual' });
      await res.body?.cancel();
      if (!res.ok) opts.onExportError?.(signal, items, `HTTP ${res.status}`);
    } catch (e) {
      opts.onExportError?.(signal, items, (e as Error).message);
    }
  }

  return {
    observe(o) {
      queue.push(o);
      if (queue.length > maxQueue) {
        const dropped = queue.splice(0, queue.length - maxQueue).length;
        opts.onExportError?.('traces', dropped, 'export queue full: oldest entries dropped');
      }
    },
    async flush() {
      const batch = queue;
      queue = [];
      if (batch.length === 0) return;
      const spans: Record<string, unknown>[] = [];
      const logRecords: Record<string, unknown>[] = [];
      for (const o of batch) {
        try {
          const e = decode(o.bytes);
          const attributes = entryAttributes(o, e);
          const place = await placeOf(o, e);
          const type = typeof e.type === 'string' ? e.type : 'entry';
          const start = typeof e.time === 'string' && !Number.isNaN(Date.parse(e.time)) ? Date.parse(e.time) : Date.now();
          const effect = attributes['vouch.effect'];
          spans.push({
            ...place,
            name: `vouch.${type}${typeof e.event === 'string' ? ` ${e.event}` : ''}`,
            kind: SPAN_KIND_INTERNAL,
            startTimeUnixNano: nanos(start),
            endTimeUnixNano: nanos(Math.max(start, Date.now())),
            attributes: otlpAttributes(attributes),
            status: effect === 'deny' ? { code: STATUS_ERROR, message: String(attributes['vouch.reason'] ?? 'deny') } : {},
          });
          logRecords.push({
            timeUnixNano: nanos(start),
            observedTimeUnixNano: nanos(Date.now()),
            severityNumber: effect === 'deny' ? SEVERITY.WARN : SEVERITY.INFO,
            severityText: effect === 'deny' ? 'WARN' : 'INFO',
            eventName: `vouch.${type}`,
            body: { stringValue: `${type} #${o.seq}${effect ? ` ${String(effect)}` : ''}${typeof e.event === 'string' ? ` ${e.event}` : ''}${typeof e.target === 'string' ? ` ${e.target}` : ''}` },
            attributes: otlpAttributes(attributes),
            traceId: place.traceId,
            spanId: place.spanId,
          });
        } catch (err) {
          opts.onExportError?.('traces', 1, (err as Error).message);
        }
      }
      await Promise.all([
        post('traces', { resourceSpans: [{ resource, scopeSpans: [{ scope, spans }] }] }, spans.length),
        post('logs', { resourceLogs: [{ resource, scopeLogs: [{ scope, logRecords }] }] }, logRecords.length),
      ]);
    },
  };
}
