// OpenTelemetry export of decisions (adapter, Node only; the core never imports OTel): one span
// and one log record per durable log entry, over OTLP/HTTP (JSON), batched, off the decision's
// path. The span continues the caller's W3C trace the entry records (`traceparent`, with the
// vendors' `tracestate`, which the span carries on: OTLP `traceState`); an execution's span
// continues its authorization's (span-parents.ts). Export failures are counted, never thrown:
// telemetry must not block or fail a decision.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { utf8 } from '../canonical/index.js';
import { entryAttributes, type ObservedEntry } from './entry-attributes.js';
import { parseCollectorUrl } from './otlp-json.js';
import { callerContextOf, createExecutionParents, type EntryLookup } from './span-parents.js';

export { entryAttributes, type ObservedEntry } from './entry-attributes.js';

/** The collector base URL: http(s) only, no credentials in it (they would end up in logs). */
export const parseOtlpUrl = (url: string): URL => parseCollectorUrl(url, '--otlp');

export type OtlpSignal = 'traces' | 'logs';

export interface OtelOptions {
  /** The collector's OTLP/HTTP base URL (e.g. http://127.0.0.1:4318): /v1/traces and /v1/logs are appended. */
  url: string;
  serviceName?: string;
  serviceVersion?: string;
  /** Each failed export batch (collector down, refused, timeout): counted in /metrics. */
  onExportError?: (signal: OtlpSignal, items: number, error: string) => void;
  /** Batch tuning (defaults: 512 per batch, 2048 queued, 1 s delay). */
  scheduledDelayMillis?: number;
  maxQueueSize?: number;
  exportTimeoutMillis?: number;
  /**
   * Reads a tenant log's entry by seq: the authorization of an execution whose decision this
   * exporter did not see (exported before a restart), so the execution still joins the caller's trace.
   */
  entryOf?: EntryLookup;
}

export interface OtelExporter {
  /** Never throws and never waits: the span is built on a later tick and exported in batches. */
  observe(e: ObservedEntry): void;
  /** Export what is queued (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

function signalUrl(base: URL, path: string): string {
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/${path}`;
}

/** Wraps an exporter so a failed batch is counted (the SDK only logs it through its diag logger). */
function counted<T>(inner: { export(items: T[], cb: (r: ExportResult) => void): void }, signal: OtlpSignal, onError: OtelOptions['onExportError']) {
  return (items: T[], cb: (r: ExportResult) => void) => {
    try {
      inner.export(items, (r) => {
        if (r.code !== ExportResultCode.SUCCESS) onError?.(signal, items.length, r.error?.message ?? 'export failed');
        cb(r);
      });
    } catch (e) {
      onError?.(signal, items.length, (e as Error).message);
      cb({ code: ExportResultCode.FAILED, error: e as Error });
    }
  };
}

type Entry = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Entry | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Entry) : undefined);

export function createOtelExporter(opts: OtelOptions): OtelExporter {
  const base = parseOtlpUrl(opts.url);
  const resource = resourceFromAttributes({ 'service.name': opts.serviceName ?? 'vouch', 'service.version': opts.serviceVersion ?? '0.1.0' });
  const batch = { scheduledDelayMillis: opts.scheduledDelayMillis ?? 1000, maxQueueSize: opts.maxQueueSize ?? 2048, maxExportBatchSize: 512, exportTimeoutMillis: opts.exportTimeoutMillis ?? 10_000 };
  const spanInner = new OTLPTraceExporter({ url: signalUrl(base, 'v1/traces'), timeoutMillis: batch.exportTimeoutMillis });
  const spanExporter: SpanExporter = {
    export: counted<ReadableSpan>(spanInner, 'traces', opts.onExportError),
    shutdown: () => spanInner.shutdown(),
    forceFlush: () => spanInner.forceFlush(),
  };
  const logInner = new OTLPLogExporter({ url: signalUrl(base, 'v1/logs'), timeoutMillis: batch.exportTimeoutMillis });
  const logExporter: LogRecordExporter = {
    export: counted<ReadableLogRecord>(logInner, 'logs', opts.onExportError),
    shutdown: () => logInner.shutdown(),
    forceFlush: () => logInner.forceFlush(),
  };
  // Every decision is exported: a caller's "not sampled" flag must not hide its calls from the
  // platform's view (the flag is kept on the parent, the span itself is always recorded).
  const tracerProvider = new BasicTracerProvider({ resource, sampler: new AlwaysOnSampler(), spanProcessors: [new BatchSpanProcessor(spanExporter, batch)] });
  const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: logExporter, ...batch })] });
  const tracer = tracerProvider.getTracer('vouch', opts.serviceVersion ?? '0.1.0');
  const logger = loggerProvider.getLogger('vouch', opts.serviceVersion ?? '0.1.0');
  const pending = new Set<NodeJS.Immediate>();
  const lookups = new Set<Promise<void>>();
  const executions = createExecutionParents(opts.entryOf);
  let closed = false;

  const decode = (o: ObservedEntry): Entry => {
    try {
      return obj(JSON.parse(utf8.decode(o.bytes))) ?? {};
    } catch {
      return {};
    }
  };

  /** An entry's span: an execution's parent may need a log read (in order: later entries wait for none). */
  const emit = (o: ObservedEntry) => {
    const e = decode(o);
    const parent = e.type === 'execution' ? executions.parentOf(o.tenant, e) : callerContextOf(e);
    if (!(parent instanceof Promise)) return emitSpan(o, e, parent);
    const p = parent.then(
      (ctx) => emitSpan(o, e, ctx),
      () => emitSpan(o, e, ROOT_CONTEXT),
    );
    const tracked = p.catch((err) => opts.onExportError?.('traces', 1, (err as Error).message)).finally(() => lookups.delete(tracked));
    lookups.add(tracked);
  };

  const emitSpan = (o: ObservedEntry, e: Entry, parent: Context) => {
    const attributes = entryAttributes(o, e);
    const time = typeof e.time === 'string' && !Number.isNaN(Date.parse(e.time)) ? new Date(e.time) : new Date();
    const type = str(e.type) ?? 'entry';
    const span = tracer.startSpan(`vouch.${type}${typeof e.event === 'string' ? ` ${e.event}` : ''}`, { kind: SpanKind.INTERNAL, attributes, startTime: time }, parent);
    if (type === 'decision') executions.remember(o.tenant, o.seq, span.spanContext());
    const effect = attributes['vouch.effect'];
    if (effect === 'deny') span.setStatus({ code: SpanStatusCode.ERROR, message: String(attributes['vouch.reason'] ?? 'deny') });
    span.end(new Date(Math.max(time.getTime(), Date.now())));
    // The log record sits in the span's trace, so a tracing UI shows it with the span.
    logger.emit({
      timestamp: time,
      severityNumber: effect === 'deny' ? SeverityNumber.WARN : SeverityNumber.INFO,
      severityText: effect === 'deny' ? 'WARN' : 'INFO',
      eventName: `vouch.${type}`,
      body: `${type} #${o.seq}${effect ? ` ${String(effect)}` : ''}${typeof e.event === 'string' ? ` ${e.event}` : ''}${typeof e.target === 'string' ? ` ${e.target}` : ''}`,
      attributes: attributes as never,
      context: trace.setSpan(ROOT_CONTEXT, span),
    });
  };

  return {
    observe(o) {
      if (closed) return;
      const h = setImmediate(() => {
        pending.delete(h);
        try {
          emit(o);
        } catch (err) {
          opts.onExportError?.('traces', 1, (err as Error).message);
        }
      });
      pending.add(h);
    },
    async flush() {
      await new Promise<void>((r) => setImmediate(r));
      await Promise.all([...lookups]);
      await Promise.all([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
    },
    async shutdown() {
      if (closed) return;
      await new Promise<void>((r) => setImmediate(r));
      closed = true;
      await Promise.all([...lookups]);
      await Promise.allSettled([tracerProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
}
