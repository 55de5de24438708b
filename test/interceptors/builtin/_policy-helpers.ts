// Shared setup for the policy-backed built-in tests: the example policy set and a context maker.
import { readFileSync } from 'node:fs';
import { expandSettings } from '../../../src/policy/config-settings.js';
import type { Json, InterceptorContext, Phase } from '../../../src/interceptors/types.js';
import { loadPolicySet, type PolicySet } from '../../../src/policy/index.js';

// The file's settings (`${VOUCH_FILES_ROOT:-/tmp/allowed}`) at their defaults, as loadConfigFile reads them.
const policies = expandSettings(readFileSync(new URL('../../../fixtures/config/policy.cedar', import.meta.url), 'utf8'), {});
const schema = JSON.parse(readFileSync(new URL('../../../fixtures/config/schema.cedarschema.json', import.meta.url), 'utf8')) as Json;

let cached: PolicySet | undefined;
export function examplePolicySet(): PolicySet {
  return (cached ??= loadPolicySet({ policies, schema }));
}

export function makeCtx(event: string, phase: Phase, extra: Partial<InterceptorContext> = {}): InterceptorContext {
  return {
    event,
    phase,
    direction: phase === 'request' ? 'sending' : 'receiving',
    time: '2026-03-01T12:00:00Z',
    sessionId: 'sess-1',
    principal: 'alice',
    // The example policy's tools are for Role::"tool-user" (issue 37): alice holds it unless a test says otherwise.
    roles: ['tool-user'],
    signal: new AbortController().signal,
    ...extra,
  };
}
