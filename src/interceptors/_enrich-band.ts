// The enrichment band: after every gate (validators and ordinary mutators) has let a response
// through, the enrichers annotate it, in parallel, each on the same gated result, under their own
// bounded deadline. An enricher never blocks: a failure leaves the result unannotated and is
// recorded. What each added is recorded by digest (its bytes go to the payload store, erasable),
// and replay applies the recorded additions without running any enricher (live evidence changes).
import { digestJson, isPlainObject, setMember, type Digest, type Json } from '../canonical/index.js';
import { ENRICH_STATE_KEY } from '../log/index.js';
import { ROLE_META } from '../protocol/index.js';
import { attemptInterceptor, type Attempt } from './_attempt.js';
import type { BaseContext } from './_context.js';
import { ENRICHMENT_META, enforceContract, type Addition } from './_enrich-contract.js';
import { recordedLabel } from './builtin/recorded-text.js';
import type { Interceptor, InterceptorDescriptor, InterceptorResult, MutationResult } from './types.js';

/** The entry's state key of the band's record (a name no interceptor can have); the log checks the digests under it. */
export { ENRICH_STATE_KEY };
/** The band's own deadline: separate from the chain's, and bounded whatever a config asks. */
export const DEFAULT_ENRICHER_TIMEOUT_MS = 2_000;
export const MAX_ENRICHER_TIMEOUT_MS = 10_000;
const NOT_RECORDED = 'no recorded enrichment (replay never runs an enricher)';

export function isEnricher(ic: Interceptor | InterceptorDescriptor): boolean {
  const d = 'descriptor' in ic ? ic.descriptor : ic;
  return d.type === 'mutation' && d._meta?.[ROLE_META] === 'enricher';
}

/** One enricher's outcome, as the entry's state records it (in band order). */
interface BandRecord {
  name: string;
  enrichment?: Digest;
  violations?: string[];
  bounded?: string[];
  error?: string;
  timedOut?: true;
}

export interface BandEnv {
  ctx: BaseContext;
  /** The gates' results so far and vouch's recorded checks (guards), for built-in enrichers. */
  results: readonly InterceptorResult[];
  facts: Record<string, Json>;
  timeoutMs?: number;
  clock?: { monotonic(): number };
  /** Replay: the recorded band (state) and the recorded additions by digest. */
  replay?: { recorded: Json | undefined; additions: Record<string, Json> };
}

export interface BandRun {
  payload: Json;
  results: InterceptorResult[];
  state: Json;
  /** Live only: each addition by digest, for the payload store. */
  additions: { digest: Digest; value: Json }[];
}

export function enricherTimeoutOf(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return DEFAULT_ENRICHER_TIMEOUT_MS;
  return Math.min(ms, MAX_ENRICHER_TIMEOUT_MS);
}

/** The gated result without any `_meta["io.vouch/enrichment"]` of its own: only the band writes that key. */
function withoutReservedKey(payload: Json): Json {
  if (!isPlainObject(payload) || !isPlainObject(payload._meta) || !Object.hasOwn(payload._meta, ENRICHMENT_META)) return payload;
  const { [ENRICHMENT_META]: _forged, ...rest } = payload._meta as Record<string, Json>;
  const out = { ...(payload as Record<string, Json>) };
  if (Object.keys(rest).length > 0) out._meta = rest;
  else delete out._meta;
  return out;
}

export async function runEnrichmentBand(enrichers: Interceptor[], gated: Json, env: BandEnv): Promise<BandRun> {
  const given = withoutReservedKey(gated);
  const additions: { digest: Digest; value: Json }[] = [];
  const byDigest: Record<string, Json> = {};
  let records: BandRecord[];
  if (env.replay) {
    records = replayedRecords(enrichers, env.replay.recorded);
    Object.assign(byDigest, env.replay.additions);
  } else {
    const attempts = await attemptAll(enrichers, given, env);
    records = enrichers.map((ic, i) => {
      const { record, addition } = recordOf(ic.descriptor.name, given, attempts[i]);
      if (addition && record.enrichment) {
        byDigest[record.enrichment] = addition as unknown as Json;
        additions.push({ digest: record.enrichment, value: addition as unknown as Json });
      }
      return record;
    });
  }
  const modeOf = new Map(enrichers.map((ic) => [ic.descriptor.name, ic.descriptor.mode]));
  let payload = given;
  const results: InterceptorResult[] = records.map((r) => {
    const addition = r.enrichment === undefined ? undefined : (byDigest[r.enrichment] as Addition | undefined);
    const audit = modeOf.get(r.name) === 'audit';
    const applied = addition !== undefined && !audit;
    if (applied) payload = applyAddition(payload, r.name, addition);
    const out: MutationResult = { interceptor: r.name, type: 'mutation', phase: env.ctx.phase, modified: applied, payload, info: infoOf(r, addition, audit) };
    return out;
  });
  return { payload, results, state: records as unknown as Json, additions };
}

/**
 * Every enricher at once on the same result, all started together, each under the band's deadline
 * (its attempt aborts what it left running, a remote call included): the band ends by then.
 */
function attemptAll(enrichers: Interceptor[], given: Json, env: BandEnv): Promise<Attempt[]> {
  const timeoutMs = enricherTimeoutOf(env.timeoutMs);
  const ctx = { ...env.ctx, enrichment: { results: env.results, facts: env.facts } } as BaseContext;
  // The band records what it kept, not the raw answer (its text belongs in the payload store).
  return Promise.all(enrichers.map((ic) => attemptInterceptor(ic, given, ctx, { timeoutMs, clock: env.clock, recordState: () => undefined })));
}

function recordOf(name: string, given: Json, a: Attempt): { record: BandRecord; addition?: Addition } {
  if (!a.ok) return { record: { name, error: recordedLabel(a.reason, 512), ...(a.timedOut && { timedOut: true as const }) } };
  const r = a.result as MutationResult;
  const enforced = enforceContract(given, r.modified ? r.payload : given);
  const record: BandRecord = { name };
  const addition = enforced.addition;
  const empty = addition.content === undefined && addition.record === undefined;
  if (!empty) record.enrichment = digestJson(addition);
  if (enforced.violations.length) record.violations = enforced.violations.map((v) => recordedLabel(v, 256));
  if (enforced.bounded.length) record.bounded = enforced.bounded;
  return { record, addition: empty ? undefined : addition };
}

/** The recorded band, restricted to the enrichers hooked now; one hooked but never recorded (what-if) failed. */
function replayedRecords(enrichers: Interceptor[], recorded: Json | undefined): BandRecord[] {
  const hooked = new Set(enrichers.map((ic) => ic.descriptor.name));
  const list = Array.isArray(recorded) ? (recorded.filter((r) => isPlainObject(r) && typeof r.name === 'string') as unknown as BandRecord[]) : [];
  const kept = list.filter((r) => hooked.has(r.name));
  const seen = new Set(kept.map((r) => r.name));
  for (const ic of enrichers) if (!seen.has(ic.descriptor.name)) kept.push({ name: ic.descriptor.name, error: NOT_RECORDED });
  return kept;
}

/** The result plus one enricher's addition: blocks appended, its record under its name. */
function applyAddition(payload: Json, name: string, addition: Addition): Json {
  if (!isPlainObject(payload)) return payload;
  const out = { ...(payload as Record<string, Json>) };
  if (addition.content && Array.isArray(out.content)) out.content = [...out.content, ...addition.content];
  if (addition.record !== undefined) {
    const meta = isPlainObject(out._meta) ? { ...(out._meta as Record<string, Json>) } : {};
    const band = isPlainObject(meta[ENRICHMENT_META]) ? { ...(meta[ENRICHMENT_META] as Record<string, Json>) } : {};
    setMember(band, name, addition.record);
    setMember(meta, ENRICHMENT_META, band);
    out._meta = meta;
  }
  return out;
}

/** What the entry's decision shows of one enricher: the digest of what it added, its score and counts, never its text. */
function infoOf(r: BandRecord, addition: Addition | undefined, audit: boolean): Record<string, unknown> {
  const info: Record<string, unknown> = { role: 'enricher' };
  if (audit) info.mode = 'audit';
  if (r.enrichment !== undefined) info.enrichment = r.enrichment;
  const rec = addition?.record;
  if (isPlainObject(rec)) {
    if (typeof rec.kind === 'string') info.kind = recordedLabel(rec.kind, 64);
    if (rec.score === null || (typeof rec.score === 'number' && Number.isFinite(rec.score))) info.score = rec.score;
    const counts = countsOf(rec.counts);
    if (counts) info.counts = counts;
  }
  if (r.violations) info.violations = r.violations;
  if (r.bounded) info.bounded = r.bounded;
  if (r.error !== undefined) info.error = r.error;
  if (r.timedOut) info.timedOut = true;
  return info;
}

/** A claims record's counts: at most 8 finite numbers under short names. */
export function countsOf(v: unknown): Record<string, number> | undefined {
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v).slice(0, 8)) if (typeof n === 'number' && Number.isFinite(n) && /^[a-z][a-zA-Z]{0,31}$/.test(k)) out[k] = n;
  return Object.keys(out).length ? out : undefined;
}
