// The decision path's public surface (DESIGN.md section 2): request parsing and caller resolution,
// vouch's own prechecks, decide() itself, and the policy in force (activation, recording, pinning).
// Every adapter (REST, /mcp, gateway, CLI, Worker) calls down into it; it imports no adapter.
export {
  decide,
  decisionRecord,
  denyResult,
  directionOf,
  guardDenyOf,
  mutatorsOf,
  planOf,
  uncoveredOf,
  GUARD_STATE_KEY,
  UNCOVERED_KEY,
  VOUCH_ENGINE_VERSION,
  type ActivePolicy,
  type DecideDeps,
  type DecisionOutcome,
  type DurableOutcome,
  type AnyOutcome,
  type Wait,
  type DecisionRequest,
  type Guard,
} from './decide.js';
export { activatePolicy, type ActivateDeps, type Activated } from './activate.js';
export { EVENT_RE, parseExecuteChainParams, parseInvokeParams, parseListParams, type ChainContextParams, type ExecuteChainParams, type InvokeRpcParams } from './params.js';
export { assertKnownInterceptors, decideParams, onBehalfOf, DELEGATE_ROLE, type Asker, type DecideParamsDeps } from './decide-params.js';
export { runPrechecks, AUTHORIZATION_META, EXECUTED_META, type Precheck, type PrecheckDeps, type PrecheckRequest } from './precheck.js';
export { loadPinnedPolicy, policyDocumentsOf, recordActivation, recordPolicyDocuments, type DocumentStore, type PolicyDocuments, type PolicyLog, type RecordOptions } from './policy-in-force.js';
export { newestPolicyRecord, recordPolicyEntry, recordUnpin, LEGACY_PIN_META, type PolicyNames, type PolicyRecord, type PolicyStore } from './policy-record.js';
