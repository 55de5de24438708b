// cedar-policy: authorization of each call by the Cedar policy set (DESIGN 3). Principal from
// the caller's token, action = the event, resource = tool / prompt / resource URI / server.
// Pure and deterministic; default deny; a missing principal or an evaluation error denies.
import { ConfigError } from '../../errors.js';
import { argumentsOf, buildAuthzRequest, explainDefaultDeny, PATH_CHECKED_EVENTS, pathArgumentsOf, resourceOf, type PolicySet } from '../../policy/index.js';
import type { InterceptorContext, Interceptor, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import type { BuiltinFactory } from './types.js';

export const CEDAR_POLICY_EVENTS = [
  'tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'sampling/createMessage', 'elicitation/create',
];

function deny(why: string, info: Record<string, unknown>): ValidationOutcome {
  return { valid: false, severity: 'error', messages: [{ message: `denied by policy ${why}`, severity: 'error' }], info };
}

/**
 * Pure: the decision of `policySet` on this message. For calls, each path-like argument (at any
 * depth, in arrays) is judged too, as `context.path` in a request of its own: all must allow.
 */
export function authorizeMessage(policySet: PolicySet, payload: unknown, ctx: Omit<InterceptorContext, 'signal' | 'state'>): ValidationOutcome {
  const resource = resourceOf(ctx.event, payload, ctx.server);
  if (!resource.ok) return deny(`(${resource.reason})`, { reasons: [] });
  // Argument keys as they read (zero-width and look-alike spellings normalized), once, for every request below.
  const normalized = argumentsOf(ctx.event, payload);
  if (!normalized.ok) return deny(`(${normalized.reason})`, { reasons: [] });
  const args = normalized.args;
  const found = PATH_CHECKED_EVENTS.has(ctx.event) ? pathArgumentsOf(args) : { ok: true as const, paths: [] };
  if (!found.ok) return deny(`(${found.reason})`, { reasons: [] });
  const reasons = new Set<string>();
  for (const path of [undefined, ...found.paths]) {
    const req = buildAuthzRequest(ctx.event, resource.resource, args, ctx, path);
    if (!req) return deny('(no principal)', { reasons: [] });
    const r = policySet.authorize(req);
    const info: Record<string, unknown> = { reasons: r.reasons };
    if (path !== undefined) info.path = path;
    if (r.decision !== 'allow') {
      const on = path === undefined ? '' : ` on path '${path.slice(0, 200)}'`;
      if (r.errors.length > 0) return deny(`${r.reasons.length > 0 ? r.reasons.join(', ') : '(evaluation error)'}${on}`, { ...info, errors: r.errors });
      if (r.reasons.length > 0) return deny(`${r.reasons.join(', ')}${on}`, info);
      // Default deny: which resource no permit matched, and a role that would allow it (issue 37).
      // The words before the colon are the record's of old: replay reads older entries by them.
      return deny(`(default deny)${on}: ${explainDefaultDeny(policySet, req)}${path === undefined ? '' : ' with this path'}`, info);
    }
    for (const id of r.reasons) reasons.add(id);
  }
  return { valid: true, info: found.paths.length ? { reasons: [...reasons].sort(), paths: found.paths.length } : { reasons: [...reasons] } };
}

export const createCedarPolicy: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  new ConfigReader(name, config, []).done();
  const policySet = deps.policySet;
  if (!policySet) throw new ConfigError('ERR_CONFIG', `${name}: cedar-policy needs a policy set`, [{ path: '/use', message: 'no policies configured' }]);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Authorizes each call with the Cedar policy set (default deny).',
      hooks: [{ events: [...CEDAR_POLICY_EVENTS], phase: 'request' }],
    },
    declaration,
  );
  return { descriptor, authorizes: true, run: (payload, ctx) => authorizeMessage(policySet, payload, ctx) };
};
