// Intent vs execution: drift between what was authorized and what ran, the authorization link,
// and execution entries. The checks run before a decision (decide/precheck.ts) use these.
export { computeDrift, escapePointerSegment, MAX_DRIFT_ITEMS, SEVERITY_RANK, type DriftItem, type DriftOp, type DriftReport } from './drift.js';
export { parseDriftConfig, classifyPath, matchesPattern, DEFAULT_RULES, DEFAULT_DRIFT_RULES, SEVERITIES, type DriftRule, type DriftRules, type Severity as DriftSeverity } from './drift-rules.js';
export { loadAuthorization, type Authorization, type LinkOwner, type LogReader } from './link.js';
export { RecentAuthorizations, DEFAULT_LINK_CAPACITY } from './link-index.js';
export { recordExecution, driftRecord, type DurableExecution, type ExecutionInput, type ExecutionLog, type ExecutionOutcome, type ExecutionWait } from './record.js';
export { driftValues, pointerSegments, type DriftValue } from './drift-values.js';
