// Turn what an interceptor's run() returned into a checked SEP result (defaults omitted), and
// build the results recorded for interceptors that failed. A malformed outcome is a failure:
// an interceptor that cannot say "valid: true" clearly has not said it.
import { cloneJson, isPlainObject } from './_json.js';
import type { InterceptorDescriptor, InterceptorResult, Message, Phase, Severity } from './types.js';

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

function fail(what: string): never {
  throw new Error(`malformed outcome: ${what}`);
}

function parseInfo(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (!isPlainObject(v)) fail('info must be an object');
  return cloneJson(v) as Record<string, unknown>;
}

function parseMessages(v: unknown): Message[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) fail('messages must be an array');
  return v.map((m) => {
    if (!isPlainObject(m) || typeof m.message !== 'string') fail('each message needs a string message');
    if (!SEVERITIES.includes(m.severity as Severity)) fail('message severity must be error, warning or info');
    const out: Message = { message: m.message, severity: m.severity as Severity };
    if (m.path !== undefined) {
      if (typeof m.path !== 'string') fail('message path must be a string');
      out.path = m.path;
    }
    return out;
  });
}

/** The SEP result for a successful run; `input` is the payload the interceptor was given. */
export function resultOf(d: InterceptorDescriptor, phase: Phase, raw: unknown, input: unknown): InterceptorResult {
  if (!isPlainObject(raw)) fail('not an object');
  const info = parseInfo(raw.info);
  // Built member by member in the order the SEP lists them (no conditional spreads: this runs for
  // every interceptor of every decision).
  switch (d.type) {
    case 'validation': {
      if (typeof raw.valid !== 'boolean') fail('valid must be a boolean');
      if (raw.severity !== undefined && !SEVERITIES.includes(raw.severity as Severity)) fail('severity must be error, warning or info');
      // valid:false without a severity is treated as an error: fail closed.
      const severity = (raw.severity as Severity | undefined) ?? (raw.valid ? undefined : 'error');
      const messages = parseMessages(raw.messages);
      const out: InterceptorResult = { interceptor: d.name, phase, type: 'validation', valid: raw.valid };
      if (severity) out.severity = severity;
      if (messages && messages.length > 0) out.messages = messages;
      if (info) out.info = info;
      return out;
    }
    case 'mutation': {
      if (typeof raw.modified !== 'boolean') fail('modified must be a boolean');
      if (raw.modified && raw.payload === undefined) fail('modified without a payload');
      // A mutator that declines passes the payload through unchanged, whatever else it returned.
      const payload = raw.modified ? cloneJson(raw.payload, '/payload') : input;
      const out: InterceptorResult = { interceptor: d.name, phase, type: 'mutation', modified: raw.modified, payload };
      if (info) out.info = info;
      return out;
    }
    case 'observability': {
      if (typeof raw.observed !== 'boolean') fail('observed must be a boolean');
      const out: InterceptorResult = { interceptor: d.name, phase, type: 'observability', observed: raw.observed };
      if (raw.metrics !== undefined) {
        if (!isPlainObject(raw.metrics)) fail('metrics must be an object');
        for (const v of Object.values(raw.metrics)) if (typeof v !== 'number' || !Number.isFinite(v)) fail('metrics must be finite numbers');
        out.metrics = { ...(raw.metrics as Record<string, number>) };
      }
      if (info) out.info = info;
      return out;
    }
  }
}

/** How a failed interceptor ended up: blocking the chain, or skipped (failOpen / audit). */
export type FailureHandling = 'block' | 'skip';

/**
 * The result recorded for an interceptor that threw, timed out or returned garbage.
 * Blocking validators report an error; skipped ones a warning, so the summary shows them.
 */
export function failureResultOf(d: InterceptorDescriptor, phase: Phase, reason: string, input: unknown, handling: FailureHandling): InterceptorResult {
  const info: Record<string, unknown> = { error: reason };
  if (handling === 'skip') {
    if (d.mode === 'audit') info.mode = 'audit';
    if (d.failOpen) info.failOpen = true;
  }
  const base = { interceptor: d.name, phase, info };
  switch (d.type) {
    case 'validation': {
      const severity: Severity = handling === 'block' ? 'error' : 'warning';
      return { ...base, type: 'validation', valid: false, severity, messages: [{ message: `interceptor failed: ${reason}`, severity }] };
    }
    case 'mutation':
      return { ...base, type: 'mutation', modified: false, payload: input };
    case 'observability':
      return { ...base, type: 'observability', observed: false };
  }
}
