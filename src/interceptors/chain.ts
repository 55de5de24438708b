// The SEP-2624 chain executor (DESIGN.md section 3): select by (event, phase), order by the
// direction across the trust boundary, mutate in sequence, validate in parallel, observe
// fire-and-forget, and fail closed. Never throws: every failure is a deny ChainResult.
import { VouchError } from '../errors.js';
import { withRead } from '../lazy-property.js';
import type { AttemptOptions } from './_attempt.js';
import { DEFAULT_DIRECTIONS, baseContext, type ChainContext } from './_context.js';
import { runMutation, runParallel, type ChainState, type StepEnv } from './_chain-steps.js';
import { isEnricher, runEnrichmentBand, ENRICH_STATE_KEY } from './_enrich-band.js';
import type { Digest } from '../canonical/index.js';
import { cloneJson, describeError, setMember } from './_json.js';
import { COMPAT_SKIP, compatSkipReason, orderInterceptors, selectInterceptors } from './list.js';
import type { AbortedAt, ChainResult, Direction, Interceptor, InterceptorResult, Json, Phase, ValidationSummary } from './types.js';

export type { ChainContext } from './_context.js';
export { stripVolatile, stripDurations, VOLATILE_KEYS, CONFORMANCE_VOLATILE_KEYS } from './_volatile.js';
export { DEFAULT_ENRICHER_TIMEOUT_MS, ENRICH_STATE_KEY, isEnricher, MAX_ENRICHER_TIMEOUT_MS } from './_enrich-band.js';
export { ENRICHMENT_META } from './_enrich-contract.js';
/** The `_meta` of an enricher's descriptor. */
export const ROLE_META_ENRICHER = Object.freeze({ 'io.vouch/role': 'enricher' as const });

export interface ChainRequest {
  event: string;
  phase: Phase;
  payload: unknown;
}

export interface ChainOptions {
  /** Default: request = sending, response = receiving (a client-side deployment). */
  directions?: { request: Direction; response: Direction };
  chainTimeoutMs?: number;
  interceptorTimeoutMs?: number;
  /** Replay: prepare() is not called; each interceptor's state comes from here by name. */
  replayState?: Record<string, Json>;
  /** Only for durationMs / totalDurationMs; absent means no durations at all. */
  clock?: { monotonic(): number };
  /** The enrichment band's own deadline (bounded: _enrich-band.ts); not part of the chain's. */
  enricherTimeoutMs?: number;
  /** Replay: what each enricher added, by the digest the entry's state records (never re-run). */
  replayEnrichments?: Record<string, Json>;
  /** vouch's recorded checks of the call (the guards' records), handed to enrichers. */
  facts?: Record<string, Json>;
}

export interface ChainRun {
  result: ChainResult;
  /** What each prepare() returned (live) or what replay handed in, by interceptor name. */
  state: Record<string, Json>;
  /** Settles when every fire-and-forget observer is done or abandoned; never rejects. */
  observers: Promise<void>;
  /** Live only: what each enricher added, by digest (decide() keeps the bytes in the payload store). */
  enrichments: { digest: Digest; value: Json }[];
}

export const DEFAULT_CHAIN_TIMEOUT_MS = 10_000;
export const DEFAULT_INTERCEPTOR_TIMEOUT_MS = 5_000;
const MAX_TIMER_MS = 2_147_483_647; // setTimeout fires at once beyond this

const CHAIN = '(chain)'; // abortedAt.interceptor when the chain itself, not one interceptor, failed

/** allow iff nothing blocked: every other status is a deny (fail closed). */
export function decisionOf(result: ChainResult): 'allow' | 'deny' {
  return result.status === 'success' ? 'allow' : 'deny';
}

export async function executeChain(interceptors: Interceptor[], req: ChainRequest, ctx: ChainContext, opts: ChainOptions = {}): Promise<ChainRun> {
  const state: Record<string, Json> = {};
  const observers: Promise<void>[] = [];
  const enrichments: { digest: Digest; value: Json }[] = [];
  let result: ChainResult;
  try {
    result = await runChain(interceptors, req, ctx, opts, state, observers, enrichments);
  } catch (e) {
    result = errorResult(req, `chain error: ${describeError(e)}`);
  }
  const settled = Promise.all(observers).then(
    () => undefined,
    () => undefined,
  );
  return { result, state: { ...state }, observers: settled, enrichments };
}

async function runChain(
  interceptors: Interceptor[],
  req: ChainRequest,
  ctx: ChainContext,
  opts: ChainOptions,
  state: Record<string, Json>,
  observers: Promise<void>[],
  enrichments: { digest: Digest; value: Json }[],
): Promise<ChainResult> {
  const { event, phase } = req;
  if (typeof event !== 'string' || event.length === 0) throw new Error('event must be a non-empty string');
  if (phase !== 'request' && phase !== 'response') throw new Error('phase must be request or response');
  const start = opts.clock?.monotonic();
  const direction = (opts.directions ?? DEFAULT_DIRECTIONS)[phase];
  if (direction !== 'sending' && direction !== 'receiving') throw new Error('direction must be sending or receiving');
  const original = cloneJson(req.payload, '/payload');
  const hooked = orderInterceptors(selectInterceptors(interceptors, event, phase), phase);
  assertUniqueNames(hooked);
  // Compat: an interceptor whose protocol range excludes the negotiated version is skipped, and
  // the reason recorded as its state (the entry keeps it; replay recomputes the same skip).
  const ordered = hooked.filter((ic) => {
    const why = compatSkipReason(ic.descriptor, ctx.protocolVersion);
    if (why !== undefined) setMember(state, ic.descriptor.name, { skipped: COMPAT_SKIP, reason: why });
    return why === undefined;
  });

  const s: ChainState = { original, payload: original, results: [], inFlight: new Set(), closed: false };
  // The chain deadline's signal is made only when an interceptor that returns a promise races it
  // (every built-in answers synchronously): one AbortController per decision was measurable on
  // the event loop. Made after the deadline, it is made aborted.
  let chainAbort: AbortController | undefined;
  let expired: { why: unknown } | undefined;
  const interceptorTimeoutMs = timeoutOf(opts.interceptorTimeoutMs, DEFAULT_INTERCEPTOR_TIMEOUT_MS);
  const env: StepEnv = {
    ctx: baseContext(ctx, event, phase, direction),
    // `signal` through withRead, not a literal's getter (lazy-property.ts: kept the chain alive).
    attempt: withRead(
      {
        timeoutMs: interceptorTimeoutMs,
        replayState: opts.replayState,
        aborted: () => expired !== undefined,
        clock: opts.clock,
        recordState: (name: string, value: Json) => {
          // A remote server names its own interceptors ("__proto__" passes the protocol's name rule).
          if (!s.closed) setMember(state, name, value);
        },
      } as Omit<AttemptOptions, 'signal'>,
      'signal',
      () => {
        if (!chainAbort) {
          chainAbort = new AbortController();
          if (expired) chainAbort.abort(expired.why);
        }
        return chainAbort.signal;
      },
    ),
    observerTimeoutMs: interceptorTimeoutMs,
    replay: opts.replayState !== undefined,
    observers,
  };

  // Sending: mutate (by priority), then validate + observe. Receiving: the reverse. Enrichers
  // come after all of it, in their own band (below).
  const enrichers = ordered.filter(isEnricher);
  const mutators = ordered.filter((ic) => ic.descriptor.type === 'mutation' && !isEnricher(ic));
  const group = ordered.filter((ic) => ic.descriptor.type !== 'mutation');
  type Step = () => Promise<void>;
  const mutate: Step[] = mutators.map((ic) => () => runMutation(ic, s, env));
  const parallel: Step[] = group.length > 0 ? [() => runParallel(group, s, env)] : [];
  const steps = direction === 'sending' ? [...mutate, ...parallel] : [...parallel, ...mutate];

  const body = (async () => {
    for (const step of steps) {
      if (s.stop || s.closed) break;
      await step();
    }
  })().then(
    () => ({ failed: false as const }),
    (e: unknown) => ({ failed: true as const, e }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const chainTimeoutMs = timeoutOf(opts.chainTimeoutMs, DEFAULT_CHAIN_TIMEOUT_MS);
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), chainTimeoutMs);
  });
  const outcome = await Promise.race([body, deadline]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    // The chain deadline: deny, abandon whatever is still running, tell it to stop.
    const culprit = ordered.find((ic) => s.inFlight.has(ic));
    const reason = `chain timed out after ${chainTimeoutMs} ms`;
    s.stop = {
      status: 'timeout',
      abortedAt: { interceptor: culprit?.descriptor.name ?? CHAIN, reason, type: culprit?.descriptor.type ?? 'validation' },
      restore: true,
    };
    expired = { why: new VouchError('ERR_CHAIN_TIMEOUT', reason) };
    chainAbort?.abort(expired.why);
  }
  s.closed = true;
  if (outcome !== 'timeout' && outcome.failed) throw outcome.e;
  // The enrichment band annotates only a result the gates let through, under its own deadline
  // (the chain's has been met): it adds, it never blocks, so nothing it does can deny.
  if (!s.stop && enrichers.length > 0) {
    const band = await runEnrichmentBand(enrichers, s.payload, {
      ctx: env.ctx,
      results: [...s.results],
      facts: opts.facts ?? {},
      timeoutMs: opts.enricherTimeoutMs,
      clock: opts.clock,
      ...(opts.replayState && { replay: { recorded: opts.replayState[ENRICH_STATE_KEY], additions: opts.replayEnrichments ?? {} } }),
    });
    s.payload = band.payload;
    s.results.push(...band.results);
    setMember(state, ENRICH_STATE_KEY, band.state);
    enrichments.push(...band.additions);
  }

  const stop = s.stop;
  const restore = stop !== undefined && (stop.restore || stop.status === 'timeout');
  const result: ChainResult = {
    status: stop?.status ?? 'success',
    event,
    phase,
    results: [...s.results],
    finalPayload: restore ? original : s.payload,
    validationSummary: summarize(s.results),
  };
  if (stop) result.abortedAt = stop.abortedAt;
  if (start !== undefined && opts.clock) result.totalDurationMs = Math.max(0, opts.clock.monotonic() - start);
  return result;
}

function assertUniqueNames(ordered: Interceptor[]): void {
  // State and results are keyed by name: two interceptors with one name would be ambiguous.
  const seen = new Set<string>();
  for (const ic of ordered) {
    if (seen.has(ic.descriptor.name)) throw new Error(`duplicate interceptor name ${ic.descriptor.name}`);
    seen.add(ic.descriptor.name);
  }
}

function timeoutOf(v: number | undefined, fallback: number): number {
  if (v === undefined || !Number.isFinite(v) || v <= 0) return fallback;
  return Math.min(v, MAX_TIMER_MS);
}

/** Counts message severities (or the result's severity when it has no messages), audit included. */
export function summarize(results: InterceptorResult[]): ValidationSummary {
  const out: ValidationSummary = { errors: 0, warnings: 0, infos: 0 };
  const count = (sev: string | undefined) => {
    if (sev === 'error') out.errors += 1;
    else if (sev === 'warning') out.warnings += 1;
    else if (sev === 'info') out.infos += 1;
  };
  for (const r of results) {
    if (r.type !== 'validation') continue;
    if (r.messages && r.messages.length > 0) r.messages.forEach((m) => count(m.severity));
    else count(r.severity);
  }
  return out;
}

function errorResult(req: ChainRequest, reason: string): ChainResult {
  let finalPayload: unknown = null;
  try {
    finalPayload = cloneJson(req?.payload);
  } catch {
    // not JSON: nothing safe to echo back
  }
  const abortedAt: AbortedAt = { interceptor: CHAIN, reason, type: 'validation' };
  return {
    status: 'error',
    event: typeof req?.event === 'string' ? req.event : '',
    phase: req?.phase === 'response' ? 'response' : 'request',
    results: [],
    finalPayload,
    validationSummary: { errors: 0, warnings: 0, infos: 0 },
    abortedAt,
  };
}
