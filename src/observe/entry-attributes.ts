// What an entry's span and log record say (OTLP attributes): shared by Node's OTel SDK exporter
// (otel.ts) and the Worker's OTLP/JSON exporter (otlp-json.ts), so both export the same shape.
// Labels only, never a payload: every field read here is a recorded label (caller-text.test.ts). Portable.
import { toHex } from '../canonical/index.js';

/** What is observed: one durable entry of a tenant log (its bytes as signed, seq and leaf hash). */
export interface ObservedEntry {
  tenant: string;
  seq: number;
  leaf: Uint8Array;
  bytes: Uint8Array;
}

export type EntryAttributes = Record<string, string | number | boolean | string[]>;

type Entry = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Entry | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Entry) : undefined);

/** The drift severity an entry records: an execution's own, or the execution guard's on a response decision. */
function driftOf(e: Entry): string | undefined {
  const own = obj(e.drift);
  if (own) return str(own.severity);
  const guard = obj(obj(obj(e.state)?.['(vouch)'])?.execution);
  return str(obj(guard?.drift)?.severity);
}

/** Span attributes of an entry: what it decided, about what, for whom, and where it sits in the log. */
export function entryAttributes(o: ObservedEntry, e: Entry): EntryAttributes {
  const a: EntryAttributes = { 'vouch.tenant': o.tenant, 'vouch.seq': o.seq, 'vouch.leaf': toHex(o.leaf), 'vouch.entry.type': str(e.type) ?? 'unknown' };
  const decision = obj(e.decision);
  const policy = obj(e.policy);
  const set = (k: string, v: unknown) => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') a[k] = v;
  };
  set('vouch.effect', decision?.effect);
  set('vouch.event', e.event);
  set('vouch.phase', e.phase);
  set('vouch.target', e.target);
  set('vouch.principal', e.principal);
  set('vouch.on_behalf_of', e.onBehalfOf);
  set('vouch.session', e.session);
  set('vouch.server', e.server);
  set('vouch.policy.digest', policy?.policySet);
  set('vouch.policy.chain', policy?.chain);
  set('vouch.authorization', e.authorization);
  set('vouch.drift', driftOf(e));
  set('vouch.reason', obj(decision?.abortedAt)?.reason);
  if (Array.isArray(e.flags) && e.flags.length) a['vouch.flags'] = e.flags.filter((f): f is string => typeof f === 'string');
  set('mcp.method.name', e.event);
  enrichmentAttributes(a, decision?.results);
  return a;
}

/**
 * The enrichers of a decision (issue 39): which ran, each one's trust score and claim counts, and
 * whether it failed or broke its contract. Numbers and names only, never the text it added.
 */
function enrichmentAttributes(a: EntryAttributes, results: unknown): void {
  if (!Array.isArray(results)) return;
  const names: string[] = [];
  for (const r of results) {
    const x = obj(r);
    const info = obj(x?.info);
    if (info?.role !== 'enricher' || typeof x?.interceptor !== 'string') continue;
    const name = x.interceptor;
    names.push(name);
    const at = `vouch.enrichment.${name}`;
    if (typeof info.score === 'number') a[`${at}.score`] = info.score;
    const counts = obj(info.counts);
    for (const [k, n] of Object.entries(counts ?? {})) if (typeof n === 'number') a[`${at}.${k}`] = n;
    if (typeof info.error === 'string') a[`${at}.failed`] = true;
    if (Array.isArray(info.violations)) a[`${at}.violations`] = info.violations.length;
  }
  if (names.length) a['vouch.enrichers'] = names;
}

