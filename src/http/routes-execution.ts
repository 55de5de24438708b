// Intent vs execution over HTTP: POST /v1/executions (what an app ran, linked to its
// authorization, with drift), and the prechecks /mcp and /v1/authorize run before deciding
// (caller co-signature, response-to-request link, drift guard). One link index per app.
import type { Hono } from 'hono';
import { parseDigest, type Digest } from '../canonical/index.js';
import { onBehalfOf, runPrechecks, type ActivePolicy, type Precheck, type PrecheckRequest } from '../decide/index.js';
import { InputError, type Issue } from '../errors.js';
import { parseDriftConfig, recordExecution, RecentAuthorizations, type DriftRules } from '../execution/index.js';
import type { Env } from './app.js';
import { readJsonBody } from './body.js';
import type { AppDeps, Caller, TenantLogPort } from './deps.js';
import type { RestContext } from './routes-rest.js';

export type PrecheckFn = (caller: Caller, log: TenantLogPort, policy: ActivePolicy, req: PrecheckRequest) => Promise<Precheck>;

interface ExecutionBody {
  authorization: number | null;
  executed: unknown;
  resultDigest?: Digest;
  event?: string;
  context?: { sessionId?: string; traceId?: string; principal?: string; onBehalfOf?: string };
}

const driftCache = new WeakMap<object, DriftRules>();

/** The config's `drift` section (kept with the chain document, so replay sees the same rules). */
export function driftRulesOf(policy: ActivePolicy): DriftRules {
  let r = driftCache.get(policy);
  if (!r) {
    r = parseDriftConfig((policy as { resolved?: { config?: { drift?: unknown } } }).resolved?.config?.drift);
    driftCache.set(policy, r);
  }
  return r;
}

export function parseExecutionBody(input: unknown): ExecutionBody {
  const issues: Issue[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('ERR_INPUT', 'body must be an object', [{ path: '', message: 'must be an object' }]);
  const o = input as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['authorization', 'executed', 'resultDigest', 'event', 'context'].includes(k)) issues.push({ path: `/${k}`, message: 'unknown field' });
  if (!('authorization' in o)) issues.push({ path: '/authorization', message: 'required: the seq of the decision that allowed this (null if none)' });
  else if (o.authorization !== null && (!Number.isSafeInteger(o.authorization) || (o.authorization as number) < 0)) issues.push({ path: '/authorization', message: 'must be a non-negative integer or null' });
  if (!('executed' in o)) issues.push({ path: '/executed', message: 'required: the parameters that ran' });
  let resultDigest: Digest | undefined;
  if (o.resultDigest !== undefined) {
    try {
      resultDigest = parseDigest(o.resultDigest, '/resultDigest');
    } catch {
      issues.push({ path: '/resultDigest', message: 'must be sha256:<64 hex>' });
    }
  }
  if (o.event !== undefined && (typeof o.event !== 'string' || o.event.length === 0 || o.event.length > 200)) issues.push({ path: '/event', message: 'must be an event name' });
  const context: ExecutionBody['context'] = {};
  if (o.context !== undefined) {
    const c = o.context as Record<string, unknown>;
    if (typeof c !== 'object' || c === null || Array.isArray(c)) issues.push({ path: '/context', message: 'must be an object' });
    else
      for (const k of ['sessionId', 'traceId', 'principal', 'onBehalfOf'] as const) {
        if (c[k] === undefined) continue;
        if (typeof c[k] !== 'string' || (c[k] as string).length === 0 || (c[k] as string).length > 256) issues.push({ path: `/context/${k}`, message: 'must be a non-empty string of at most 256 characters' });
        else context[k] = c[k] as string;
      }
  }
  if (issues.length) throw new InputError('ERR_INPUT', `invalid execution report: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { authorization: o.authorization as number | null, executed: o.executed, resultDigest, event: o.event as string | undefined, context };
}

/** Registers POST /v1/executions and returns the precheck /mcp and /v1/authorize run. */
export function registerExecutionRoutes(app: Hono<Env>, rc: Omit<RestContext, 'precheck'>): PrecheckFn {
  const { deps, limits, withRole } = rc;
  const recent = new RecentAuthorizations();
  const precheck = createPrecheck(deps, recent);

  app.post('/v1/executions', withRole('enforce'), async (c) => {
    const caller = c.get('caller');
    const body = parseExecutionBody(await readJsonBody(c.req.raw, limits.bodyBytes));
    const [log, policy] = await Promise.all([deps.logs(caller.tenant), deps.policy(caller.tenant)]);
    const out = await recordExecution({
      log,
      authorization: body.authorization,
      executed: body.executed,
      resultDigest: body.resultDigest,
      time: deps.clock.now().toISOString(),
      tenant: caller.tenant,
      // The principal is the credential's; acting for another needs the delegate role (403 otherwise).
      principal: caller.principal,
      onBehalfOf: onBehalfOf(body.context, caller),
      caller: caller.principal,
      session: body.context?.sessionId,
      trace: body.context?.traceId,
      event: body.event,
      drift: driftRulesOf(policy),
    });
    deps.observe?.({ tenant: caller.tenant, seq: out.seq, leaf: out.appended.leaf, bytes: out.appended.bytes });
    return c.json({ seq: out.seq, drift: out.drift, flags: out.flags, receipt: out.receipt });
  });

  return precheck;
}

export function createPrecheck(deps: AppDeps, recent: RecentAuthorizations): PrecheckFn {
  return (caller, log, policy, req) =>
    runPrechecks(req, {
      tenant: caller.tenant,
      principal: caller.principal,
      log,
      callerKeys: deps.callerKeys ? () => deps.callerKeys!(caller.tenant) : undefined,
      drift: driftRulesOf(policy),
      recent,
      requireCallerSignature: deps.requireCallerSignature === true,
    });
}
