// What the log holds, typed: one writer and one validating reader per entry type, next to each
// other. Entry bytes are unchanged (JCS of the same fields); the envelope's `v` is the version.
// docs/entries.schema.json is tested against these field lists (test/entries/schema.test.ts).
// `key` entries are the log's own (log/key-history.ts writes and folds them).
import { InputError } from '../errors.js';
import { decodeEntry, type Entry } from '../log/index.js';
import { readDecisionEntry, type DecisionEntry } from './decision.js';
import { readErasureEntry, type ErasureEntry } from './erasure.js';
import { readExecutionEntry, type ExecutionEntry } from './execution.js';
import { readPinEntry, type PinEntry } from './pin.js';
import { readPolicyEntry, type PolicyEntry } from './policy.js';

export type { FieldSpec } from './_check.js';
export { decisionEntryBody, readDecisionEntry, DECISION_CORE_FIELDS, DECISION_EXTRA_FIELDS, type DecisionCore, type DecisionEntry, type DecisionExtras } from './decision.js';
export { executionEntryBody, readExecutionEntry, EXECUTION_FIELDS, EXECUTION_FLAGS, type ExecutionEntry, type ExecutionFields, type ExecutionFlag } from './execution.js';
export { policyEntryBody, readPolicyEntry, POLICY_FIELDS, type PolicyAction, type PolicyEntry, type PolicyFields } from './policy.js';
export { erasedDigests, erasureEntryBody, readErasureEntry, ERASURE_FIELDS, MAX_ERASURE_DIGESTS, type ErasureEntry, type ErasureFields } from './erasure.js';
export { pinEntryBody, readPinEntry, PIN_ACTIONS, PIN_FIELDS, type PinAction, type PinEntry, type PinFact } from './pin.js';
export { applyPinEntry, toolDefinition, toolDigest, type PinState } from './pin-state.js';

/** A `key` entry, as the log's key history reads it (log/key-history.ts). */
export type KeyEntry = Entry & { type: 'key' };
export type TypedEntry = DecisionEntry | ExecutionEntry | PolicyEntry | ErasureEntry | PinEntry | KeyEntry;

/** A decoded entry, validated by the reader of its type (throws InputError ERR_INPUT naming every bad field). */
export function readEntry(e: Entry): TypedEntry {
  switch (e.type) {
    case 'decision':
      return readDecisionEntry(e);
    case 'execution':
      return readExecutionEntry(e);
    case 'policy':
      return readPolicyEntry(e);
    case 'erasure':
      return readErasureEntry(e);
    case 'pin':
      return readPinEntry(e);
    case 'key':
      return e as KeyEntry;
    default:
      throw new InputError('ERR_INPUT', `entry ${String(e.seq)} has an unknown type ${JSON.stringify(e.type)}`, [{ path: '/type', message: 'unknown entry type' }]);
  }
}

/** Stored bytes to a typed entry: decodeEntry (canonical bytes, header) and then the type's reader. */
export function readEntryBytes(bytes: Uint8Array): TypedEntry {
  return readEntry(decodeEntry(bytes));
}
