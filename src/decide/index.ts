// The decision path's public surface (DESIGN.md section 2): request parsing and caller resolution,
// vouch's own prechecks, decide() itself, and the policy in force (activation, recording, pinning).
// Every adapter (REST, /mcp, gateway, CLI, Worker) calls down into it; it imports no adapter.
export { decide, VOUCH_ENGINE_VERSION, type ActivePolicy, type AnyOutcome, type DecideDeps, type DecisionOutcome, type DecisionRequest, type DurableOutcome, type Wait } from './decide.js';
export { guardDenyOf, uncoveredOf, GUARD_STATE_KEY, UNCOVERED_KEY, type Guard } from './guards.js';
export { declaredFields, elicitationAnswerGuard, ELICITATION_GUARD, keptElicitationAnswer } from './elicitation-answer.js';
export { decisionRecord, denyResult, directionOf, mutatorsOf, planOf } from './plan.js';
export { activatePolicy, type ActivateDeps, type Activated } from './activate.js';
export { remoteHealth, type RemoteHealth } from './remote-health.js';
export { EVENT_RE, parseExecuteChainParams, parseInvokeParams, parseListParams, type ChainContextParams, type ExecuteChainParams, type InvokeRpcParams } from './params.js';
export { assertKnownInterceptors, decideParams, onBehalfOf, DELEGATE_ROLE, type Asker, type DecideParamsDeps } from './decide-params.js';
export { runPrechecks, AUTHORIZATION_META, EXECUTED_META, type Precheck, type PrecheckDeps, type PrecheckRequest } from './precheck.js';
export { loadPinnedPolicy, policyDocumentsOf, recordActivation, recordPolicyDocuments, type DocumentStore, type PolicyDocuments, type PolicyLog, type RecordOptions } from './policy-in-force.js';
export { newestPolicyRecord, recordPolicyEntry, recordUnpin, LEGACY_PIN_META, type PolicyNames, type PolicyRecord, type PolicyStore } from './policy-record.js';
