// provenance-enricher: tells the model what vouch knows about a result (which server and tool made
// it, whether the tool's pinned definition matched, what the redactors removed, whether the result
// met the tool's output schema, which MCP era carried it), each fact with a trust label. Pure: it
// reads only the context, the gates' results and vouch's recorded checks (docs/enrichers.md).
import { ConfigError } from '../../errors.js';
import { isModernProtocolVersion, ROLE_META } from '../../protocol/index.js';
import type { Interceptor, InterceptorContext, InterceptorResult, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { compileSchema } from './_json-schema.js';
import type { BuiltinFactory } from './types.js';

/** The guard name under which an adapter (the gateway) records what it checked of a result. */
export const PROVENANCE_FACTS = 'provenance';

/**
 * attested: vouch checked it itself, and the check is in the signed entry. observed: vouch saw it
 * on the wire but cannot prove more. claimed: only the upstream's word.
 */
export type Trust = 'attested' | 'observed' | 'claimed';
type Fact = { value: Json; trust: Trust };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Counts by kind of everything the redactors of this chain removed from the result. */
function redactionsOf(results: readonly InterceptorResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    if (r.type !== 'mutation' || !isRecord(r.info) || !isRecord(r.info.byKind)) continue;
    for (const [kind, n] of Object.entries(r.info.byKind)) if (typeof n === 'number' && Number.isFinite(n)) out[kind] = (out[kind] ?? 0) + n;
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

function eraOf(v: string | undefined): Fact {
  if (v === undefined) return { value: 'unknown', trust: 'claimed' };
  return { value: isModernProtocolVersion(v) ? '2026' : '2025', trust: 'observed' };
}

/** The provenance record of one result: a pure function of what the chain recorded. */
export function provenanceOf(ctx: Pick<InterceptorContext, 'server' | 'protocolVersion' | 'enrichment'>): { kind: 'provenance'; facts: Record<string, Fact> } {
  const checked = ctx.enrichment?.facts[PROVENANCE_FACTS];
  const g = isRecord(checked) ? checked : {};
  const facts: Record<string, Fact> = {};
  facts.server = ctx.server !== undefined ? { value: ctx.server, trust: 'observed' } : { value: 'unknown', trust: 'claimed' };
  if (typeof g.tool === 'string') facts.tool = { value: g.tool, trust: 'observed' };
  // The gateway's pin guard let the call through on a match (a mismatch is denied before it is sent).
  facts.pin = g.pin === 'matched' ? { value: 'matched', trust: 'attested' } : { value: g.pin === 'not pinned' ? 'not pinned' : 'unknown', trust: 'claimed' };
  facts.redactions = { value: redactionsOf(ctx.enrichment?.results ?? []), trust: 'attested' };
  const schema = g.outputSchema;
  facts.outputSchema = schema === 'conforms' || schema === 'violates' ? { value: schema, trust: 'attested' } : { value: schema === 'none' ? 'none' : 'unknown', trust: 'claimed' };
  // The era of the session the result reaches the model in: the client's where the adapter recorded
  // it (a gateway bridging a 2026 client to a 2025 upstream), else the negotiated one; a different
  // upstream era is named beside it.
  const client = typeof g.clientProtocolVersion === 'string' ? g.clientProtocolVersion : undefined;
  facts.era = eraOf(client ?? ctx.protocolVersion);
  if (client !== undefined && ctx.protocolVersion !== undefined) {
    const upstream = eraOf(ctx.protocolVersion);
    if (upstream.value !== facts.era.value) facts.upstreamEra = upstream;
  }
  return { kind: 'provenance', facts };
}

/**
 * Whether a tool result met its tool's declared output schema (for an adapter that knows the
 * definition): `none` when it declared none, `unknown` when the schema cannot be used.
 */
export function outputSchemaVerdict(schema: Json | null | undefined, result: unknown): 'conforms' | 'violates' | 'none' | 'unknown' {
  if (schema === undefined) return 'unknown';
  if (schema === null) return 'none';
  const check = compileSchema(schema);
  if ('error' in check) return 'unknown';
  const structured = isRecord(result) ? result.structuredContent : undefined;
  if (structured === undefined) return isRecord(result) && result.isError === true ? 'unknown' : 'violates';
  return check.validate(structured, '/structuredContent').length === 0 ? 'conforms' : 'violates';
}

/** The model-visible sentence: short, and every fact with its trust label. */
export function renderProvenance(p: ReturnType<typeof provenanceOf>): string {
  const f = p.facts;
  const parts = [`server ${String(f.server.value)} (${f.server.trust})`];
  if (f.tool) parts.push(`tool ${String(f.tool.value)} (${f.tool.trust})`);
  parts.push(`pinned definition ${f.pin.value === 'matched' ? 'matched' : String(f.pin.value)} (${f.pin.trust})`);
  const red = Object.entries(f.redactions.value as Record<string, number>);
  parts.push(`redacted before you saw it: ${red.length ? red.map(([k, n]) => `${n} ${k}`).join(', ') : 'nothing'} (${f.redactions.trust})`);
  parts.push(`output schema ${f.outputSchema.value === 'none' ? 'not declared' : String(f.outputSchema.value)} (${f.outputSchema.trust})`);
  parts.push(`MCP ${String(f.era.value)} session (${f.era.trust})${f.upstreamEra ? `, upstream MCP ${String(f.upstreamEra.value)} (${f.upstreamEra.trust})` : ''}`);
  return `[vouch provenance] ${parts.join('; ')}.`;
}

/**
 * An enricher's descriptor (issue 39): the built-in's defaults with the config's overrides, refused
 * unless every hook is a response phase, marked with vouch's enricher role.
 */
export function enricherDescriptor(name: string, defaults: Parameters<typeof buildDescriptor>[1], declaration: Parameters<typeof buildDescriptor>[2]): ReturnType<typeof buildDescriptor> {
  const descriptor = buildDescriptor(name, defaults, declaration);
  if (descriptor.hooks.some((h) => h.phase !== 'response')) {
    throw new ConfigError('ERR_CONFIG', `${name}: an enricher hooks response phases only`, [{ path: '/hooks', message: 'an enricher annotates a result: use phase response' }]);
  }
  descriptor._meta = { [ROLE_META]: 'enricher' };
  return descriptor;
}

export const createProvenanceEnricher: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  new ConfigReader(name, config, []).done();
  const descriptor = enricherDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Annotates each result with what vouch knows of its provenance, each fact labelled attested, observed or claimed; never blocks.',
      hooks: [{ events: ['tools/call'], phase: 'response' }],
    },
    declaration,
  );
  return {
    descriptor,
    run(payload, ctx): MutationOutcome {
      if (!isRecord(payload)) return { modified: false, payload };
      const record = provenanceOf(ctx);
      const out: Record<string, unknown> = { ...payload };
      if (Array.isArray(payload.content)) out.content = [...payload.content, { type: 'text', text: renderProvenance(record), annotations: { audience: ['assistant'] } }];
      out._meta = { ...(isRecord(payload._meta) ? payload._meta : {}), 'io.vouch/enrichment': record };
      return { modified: true, payload: out };
    },
  };
};
