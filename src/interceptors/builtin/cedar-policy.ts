// cedar-policy: authorization of each call by the Cedar policy set (DESIGN 3). Principal from
// the caller's token, action = the event, resource = tool / prompt / resource URI / server.
// Pure and deterministic; default deny; a missing principal or an evaluation error denies.
import { ConfigError } from '../../errors.js';
import { argumentsOf, buildAuthzRequest, resourceOf, type PolicySet } from '../../policy/index.js';
import type { InterceptorContext, Interceptor, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import type { BuiltinFactory } from './types.js';

export const CEDAR_POLICY_EVENTS = [
  'tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'sampling/createMessage', 'elicitation/create',
];

function deny(why: string, info: Record<string, unknown>): ValidationOutcome {
  return { valid: false, severity: 'error', messages: [{ message: `denied by policy ${why}`, severity: 'error' }], info };
}

/** Pure: the decision of `policySet` on this message. */
export function authorizeMessage(policySet: PolicySet, payload: unknown, ctx: Omit<InterceptorContext, 'signal' | 'state'>): ValidationOutcome {
  const resource = resourceOf(ctx.event, payload, ctx.server);
  if (!resource.ok) return deny(`(${resource.reason})`, { reasons: [] });
  const req = buildAuthzRequest(ctx.event, resource.resource, argumentsOf(ctx.event, payload), ctx);
  if (!req) return deny('(no principal)', { reasons: [] });
  const r = policySet.authorize(req);
  if (r.decision === 'allow') return { valid: true, info: { reasons: r.reasons } };
  if (r.errors.length > 0) return deny(r.reasons.length > 0 ? r.reasons.join(', ') : '(evaluation error)', { reasons: r.reasons, errors: r.errors });
  return deny(r.reasons.length > 0 ? r.reasons.join(', ') : '(default deny)', { reasons: r.reasons });
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
  return { descriptor, run: (payload, ctx) => authorizeMessage(policySet, payload, ctx) };
};
