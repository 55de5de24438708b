// The path of one decision (DESIGN.md section 2): chain -> decision -> entry -> append -> receipt.
// Fail closed: a chain that cannot run, a payload that cannot be hashed, anything unexpected is
// a deny. No allow is returned before its entry is durable (fsync'd), and by default before its
// checkpoint is signed (wait "signed"); the append resolves or throws, and then there is no allow.
import { withRead } from '../lazy-property.js';
import { canonicalBytes, digestBytes, utf8, type Digest } from '../canonical/index.js';
import { codeOf, publicMessage } from '../errors.js';
import { decisionOf, executeChain, type ChainContext, type ChainOptions } from '../interceptors/chain.js';
import { assertKnownEvent } from '../protocol/index.js';
import { selectInterceptors, type UncoveredRule } from '../interceptors/list.js';
import { recordedJson, recordedLabel } from '../interceptors/builtin/recorded-text.js';
import { serverOf } from '../interceptors/server-of.js';
import { decisionTarget } from '../interceptors/target-of.js';
import type { ChainResult, Direction, Interceptor, Json, Phase } from '../interceptors/types.js';
import type { Appended, Attachment, Durable, LogWriter } from '../log/index.js';
import { buildReceipt, type Receipt } from '../receipt/index.js';
import { guardDenyOf, guardState, GUARD_STATE_KEY, UNCOVERED_KEY, type Guard } from './guards.js';
import { decisionRecord, denyResult, directionOf, mutatorsOf, planOf } from './plan.js';
import { decisionEntryBody, type DecisionCore, type DecisionExtras } from '../entries/index.js';

export const VOUCH_ENGINE_VERSION = '0.1.0';

/** The chain and policy set in force: built from a stored config document, found by digest. */
export interface ActivePolicy {
  interceptors: Interceptor[];
  chainDigest: Digest;
  policyDigest: Digest;
  /** Versions of what decides (vouch, cedar): a change shows up as a replay mismatch, not a silent drift. */
  engines: Record<string, string>;
  options: Omit<ChainOptions, 'replayState' | 'clock'>;
  /** Tool name -> MCP server, for messages whose caller did not say which server they are for. */
  toolMap?: Record<string, string>;
  /** Custom event names the config declares (`events`): with the MCP and SEP events, all a decision may be asked for. */
  events?: string[];
  /** The config's `uncovered` rules: traffic no authorization interceptor covers that is allowed (and recorded as such). */
  uncovered?: UncoveredRule[];
}

export interface DecisionRequest {
  event: string;
  phase: Phase;
  payload: unknown;
  context: ChainContext;
  /** executeChain's `interceptors` parameter: which optional interceptors to run (mandatory ones always run). */
  only?: string[];
  /** Extra recorded facts (e.g. the caller's co-signature, the authorization an execution answers): named fields only. */
  extra?: DecisionExtras;
  /** Checks vouch makes itself before the chain (co-signature, execution drift); see Guard. */
  guards?: Guard[];
  /** More payloads to keep by digest with the entry (e.g. the parameters that were executed). */
  attachments?: Attachment[];
  /**
   * What the answer waits for (default "signed"): the signed receipt, or only the entry being
   * durable ("durable": the receipt follows in `signed` and at GET /v1/entries/:seq).
   */
  wait?: Wait;
  /**
   * With wait "durable": false when the caller will never read the outcome's `signed` (an HTTP
   * answer names GET /v1/entries/:seq instead). The log then makes no inclusion proof for the
   * entry and sends no signed answer: measured at 64 durable callers over HTTP, about a tenth of
   * the server's CPU a decision. `signed` rejects with ERR_NOT_FOUND. Not part of the decision.
   */
  followSigned?: boolean;
}

export type Wait = 'signed' | 'durable';

export interface DecideDeps {
  policy: ActivePolicy;
  log: LogWriter;
  clock?: { monotonic(): number };
  /** Called with failures of post-commit hooks (never part of the decision). */
  onHookError?: (interceptor: string, e: unknown) => void;
}

export interface DecisionOutcome {
  effect: 'allow' | 'deny';
  chain: ChainResult;
  finalPayload: unknown;
  state: Record<string, Json>;
  appended: Appended;
  receipt: Receipt;
  inputDigest?: Digest;
  intentDigest?: Digest;
}

/**
 * With wait "durable": the entry is committed (fsync'd) but no signed checkpoint covers it yet.
 * `signed` resolves with its receipt once one does (GET /v1/entries/:seq serves it then too).
 */
export interface DurableOutcome extends Omit<DecisionOutcome, 'appended' | 'receipt'> {
  appended: Omit<Durable, 'signed'>;
  receipt?: undefined;
  signed: Promise<Receipt>;
}

/** A durable-only request may still be answered signed (a log that signs before it commits). */
export type AnyOutcome = DecisionOutcome | DurableOutcome;

export async function decide(req: DecisionRequest & { wait?: 'signed' }, deps: DecideDeps): Promise<DecisionOutcome>;
export async function decide(req: DecisionRequest, deps: DecideDeps): Promise<AnyOutcome>;
export async function decide(req: DecisionRequest, deps: DecideDeps): Promise<AnyOutcome> {
  const { policy } = deps;
  // An event name outside the protocol, the SEPs and the config is bad input, never a decision.
  assertKnownEvent(req.event, policy.events);
  // Which server the message belongs to: the caller's word first, else the tool map (recorded).
  // Whatever the caller wrote in the context is signed into the entry, handed to interceptors and
  // exported as telemetry: each such field is a recorded label from here on, live and in replay.
  req = { ...req, context: recordedContext(req, policy) };
  const plan = planOf(policy, req.only, req.event, req.phase, req.context.protocolVersion);
  const interceptors = plan.running;
  let ran: string[] = [];
  let inputBytes: Uint8Array | undefined;
  let chain: ChainResult;
  const guarded = guardState(req.guards);
  const guardDeny = guardDenyOf(guarded);
  let state: Record<string, Json> = {};
  // What enrichers added (live): kept by digest with the entry, like the input and the intent.
  let enrichments: { digest: Digest; value: Json }[] = [];
  try {
    inputBytes = canonicalBytes(req.payload);
  } catch (e) {
    inputBytes = undefined;
    chain = denyResult(req.event, req.phase, null, `payload rejected (${codeOf(e)}): ${publicMessage(e)}`);
  }
  if (!plan.coverage.covered) guarded[GUARD_STATE_KEY] = { ...(guarded[GUARD_STATE_KEY] as Record<string, Json> | undefined), [UNCOVERED_KEY]: plan.coverage.allow ? 'allow' : 'deny' };
  if (inputBytes && guardDeny !== undefined) chain = denyResult(req.event, req.phase, req.payload, guardDeny);
  else if (inputBytes && !plan.coverage.covered && !plan.coverage.allow) chain = denyResult(req.event, req.phase, req.payload, plan.coverage.reason);
  else if (inputBytes) {
    ran = plan.hooked;
    try {
      // The chain decides on the payload as the log keeps it (canonical JSON, keys sorted), which is
      // what replay reads back: a built-in that walks keys in order (one message per field, keys
      // redacted alike numbered in turn) then answers the same live and in replay, whatever order
      // the peer sent the keys in.
      const stored = JSON.parse(utf8.decode(inputBytes)) as unknown;
      const facts = recordedJson(guarded)[GUARD_STATE_KEY] as Record<string, Json> | undefined;
      const run = await executeChain(interceptors, { event: req.event, phase: req.phase, payload: stored }, req.context, { ...policy.options, clock: deps.clock, ...(facts && { facts }) });
      chain = run.result;
      state = run.state;
      enrichments = run.enrichments;
    } catch (e) {
      chain = denyResult(req.event, req.phase, req.payload, `chain failed: ${publicMessage(e)}`);
    }
  }
  chain = chain!;
  // Guards record what they found (drift paths, key ids, reasons): no credential in the entry.
  state = { ...state, ...recordedJson(guarded) };
  const effect = decisionOf(chain);
  const attachments: Attachment[] = [];
  const inputDigest = inputBytes && digestBytes(inputBytes);
  if (inputBytes) attachments.push({ digest: inputDigest!, bytes: inputBytes });
  for (const a of req.attachments ?? []) if (!attachments.some((x) => x.digest === a.digest)) attachments.push(a);
  for (const e of enrichments) if (!attachments.some((x) => x.digest === e.digest)) attachments.push({ digest: e.digest, bytes: canonicalBytes(e.value) });
  let intentDigest: Digest | undefined;
  if (effect === 'allow') {
    const intentBytes = canonicalBytes(chain.finalPayload);
    intentDigest = digestBytes(intentBytes);
    if (!attachments.some((a) => a.digest === intentDigest)) attachments.push({ digest: intentDigest, bytes: intentBytes });
  }
  const ctx = req.context;
  // The typed writer (entries/decision.ts): extras are named fields and can never replace a core one.
  const body = decisionEntryBody(
    {
      time: ctx.time,
      tenant: ctx.tenant,
      principal: ctx.principal,
      onBehalfOf: ctx.onBehalfOf,
      roles: ctx.roles,
      event: req.event,
      phase: req.phase,
      direction: directionOf(policy, req.phase),
      session: ctx.sessionId,
      trace: ctx.traceId,
      server: ctx.server,
      protocolVersion: ctx.protocolVersion,
      // The tool, prompt or resource the call is about (never its arguments): see target-of.ts.
      target: decisionTarget({ event: req.event, phase: req.phase, effect, input: req.payload, finalPayload: chain.finalPayload, chain, mutators: mutatorsOf(interceptors, req.event, req.phase) }),
      only: req.only,
      ran,
      policy: { chain: policy.chainDigest, policySet: policy.policyDigest, engines: policy.engines },
      input: inputDigest ? { digest: inputDigest } : { rejected: true },
      intent: intentDigest ? { digest: intentDigest } : null,
      decision: decisionRecord(chain, intentDigest === undefined ? undefined : new Map([[chain.finalPayload, intentDigest]])) as DecisionCore['decision'],
      state,
    },
    // Extras quote the caller too (a caller-signature claim's key id, even one no key matches).
    req.extra && recordedJson(req.extra),
  );
  const durable = req.wait === 'durable' && deps.log.appendDurable ? await deps.log.appendDurable(body, attachments, req.followSigned === false ? { follow: false } : undefined) : undefined;
  const appended = durable ? { seq: durable.seq, bytes: durable.bytes, leaf: durable.leaf } : await deps.log.append(body, attachments);
  // Live-only follow-ups (e.g. taint from a response) run once the decision is durable.
  if (effect === 'allow') await runCommitHooks(interceptors, req, chain.finalPayload, directionOf(policy, req.phase), deps);
  const common = { effect, chain, finalPayload: effect === 'allow' ? chain.finalPayload : req.payload, state, inputDigest, intentDigest };
  if (!durable) return { ...common, appended: appended as Appended, receipt: buildReceipt(appended as Appended) };
  durable.signed.catch(() => undefined); // the caller chose not to wait for it
  // Built for a caller that asks (the gateway attaches it to the answer when ready); /mcp and
  // /v1/authorize answer a durable caller with the entry, and the receipt is served by its seq.
  let signed: Promise<Receipt> | undefined;
  // withRead, not a literal's getter: that kept each decision alive past scavenges (lazy-property.ts).
  return withRead({ ...common, appended }, 'signed', () => {
    if (!signed) (signed = durable.signed.then(buildReceipt)).catch(() => undefined);
    return signed;
  });
}

/**
 * The context as recorded: the server (the caller's, else serverOf), session, trace and
 * on-behalf-of ids as recorded labels (no credential, no invisible character, bounded). The
 * principal, tenant and roles come from the verified token, not from the caller's text.
 */
function recordedContext(req: DecisionRequest, policy: ActivePolicy): ChainContext {
  const ctx = req.context;
  const out: ChainContext = { ...ctx, server: ctx.server !== undefined ? recordedLabel(ctx.server) : serverOf({ event: req.event, phase: req.phase, payload: req.payload, toolMap: policy.toolMap }) };
  if (ctx.sessionId !== undefined) out.sessionId = recordedLabel(ctx.sessionId);
  if (ctx.traceId !== undefined) out.traceId = recordedLabel(ctx.traceId);
  if (ctx.onBehalfOf !== undefined) out.onBehalfOf = recordedLabel(ctx.onBehalfOf);
  return out;
}

async function runCommitHooks(all: Interceptor[], req: DecisionRequest, finalPayload: unknown, direction: Direction, deps: DecideDeps): Promise<void> {
  const ctx = req.context;
  for (const ic of selectInterceptors(all, req.event, req.phase)) {
    if (!ic.commit) continue;
    try {
      // The 5 s signal is made only for a hook that reads it: AbortSignal.timeout costs a timer
      // and a signal per hook per allowed call (measured on the decision path), and the built-in
      // hooks are synchronous.
      let signal: AbortSignal | undefined;
      const hookCtx = compact({ event: req.event, phase: req.phase, direction, time: ctx.time, sessionId: ctx.sessionId, traceId: ctx.traceId, principal: ctx.principal, onBehalfOf: ctx.onBehalfOf, tenant: ctx.tenant, roles: ctx.roles, server: ctx.server });
      Object.defineProperty(hookCtx, 'signal', { enumerable: true, get: () => (signal ??= AbortSignal.timeout(5000)) });
      // A guard that reads what crossed the boundary (readsReceived) gets it before any redactor.
      await ic.commit(ic.readsReceived ? req.payload : finalPayload, hookCtx as never);
    } catch (e) {
      deps.onHookError?.(ic.descriptor.name, e);
    }
  }
}

/** Drop undefined fields so the entry says only what is known. */
function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
