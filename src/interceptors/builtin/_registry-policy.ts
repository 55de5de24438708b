// Registry entries of the policy-backed built-ins: Cedar authorization, discovery filtering and
// argument schema checks. Merged with the other built-ins' entries by the chain builder.
import { createCedarPolicy } from './cedar-policy.js';
import { createDiscoveryFilter } from './discovery-filter.js';
import { createSchemaGuard } from './schema-guard.js';
import type { BuiltinFactory } from './types.js';

export const policyBuiltins: Record<string, BuiltinFactory> = {
  'cedar-policy': createCedarPolicy,
  'discovery-filter': createDiscoveryFilter,
  'schema-guard': createSchemaGuard,
};
