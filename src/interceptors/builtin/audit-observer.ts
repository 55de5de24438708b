// audit-observer: size and shape metrics of every message, and one structured log line per
// message through an injectable sink. Observability never blocks: nothing here throws, and the
// log line is written in commit() (live only), so replay re-computes metrics without re-logging.
import { canonicalBytes } from '../../canonical/index.js';
import type { InterceptorContext, Interceptor, ObservabilityOutcome, Phase, Direction } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import type { BuiltinDeps, BuiltinFactory } from './types.js';

export interface AuditLogLine {
  time: string;
  interceptor: string;
  event: string;
  phase: Phase;
  direction: Direction;
  principal?: string;
  tenant?: string;
  session?: string;
  trace?: string;
  server?: string;
  metrics: Record<string, number>;
}

export type AuditLogSink = (line: AuditLogLine) => void;

/** BuiltinDeps plus the optional sink this built-in writes to (none: metrics only). */
export type AuditObserverDeps = BuiltinDeps & { log?: AuditLogSink };

/** Pure: payloadBytes (JCS bytes), keys (object keys at any depth), depth, strings. */
export function measurePayload(payload: unknown): Record<string, number> {
  const metrics: Record<string, number> = { keys: 0, depth: 0, strings: 0 };
  const stack: [unknown, number][] = [[payload, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > metrics.depth) metrics.depth = d;
    if (typeof v === 'string') metrics.strings += 1;
    else if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (v !== null && typeof v === 'object') {
      const rec = v as Record<string, unknown>;
      for (const k of Object.keys(rec)) {
        metrics.keys += 1;
        stack.push([rec[k], d + 1]);
      }
    }
  }
  try {
    metrics.payloadBytes = payload === undefined ? 0 : canonicalBytes(payload).length;
  } catch {
    // Not JSON (or too deep to canonicalize): the other metrics still stand.
  }
  return metrics;
}

export function auditLogLine(name: string, metrics: Record<string, number>, ctx: Omit<InterceptorContext, 'state'>): AuditLogLine {
  const line: AuditLogLine = { time: ctx.time, interceptor: name, event: ctx.event, phase: ctx.phase, direction: ctx.direction, metrics };
  if (ctx.principal !== undefined) line.principal = ctx.principal;
  if (ctx.tenant !== undefined) line.tenant = ctx.tenant;
  if (ctx.sessionId !== undefined) line.session = ctx.sessionId;
  if (ctx.traceId !== undefined) line.trace = ctx.traceId;
  if (ctx.server !== undefined) line.server = ctx.server;
  return line;
}

export const createAuditObserver: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  new ConfigReader(name, config, []).done();
  const sink = (deps as AuditObserverDeps).log;
  const descriptor = buildDescriptor(
    name,
    {
      type: 'observability',
      description: 'Emits payload metrics and a structured log line for every message; never blocks.',
      hooks: [
        { events: ['*'], phase: 'request' },
        { events: ['*'], phase: 'response' },
      ],
    },
    declaration,
  );
  return {
    descriptor,
    run: (payload, ctx): ObservabilityOutcome => ({ observed: true, metrics: measurePayload(payload), info: { event: ctx.event } }),
    commit(finalPayload, ctx) {
      if (!sink) return;
      try {
        sink(auditLogLine(name, measurePayload(finalPayload), ctx));
      } catch {
        // A failing log sink must never turn into a failed decision.
      }
    },
  };
};
