// The log: entry format, Merkle tree, signed notes and checkpoints, group commit, fsck.
export * from './merkle.js';
export { encodeEntry, decodeEntry, ENTRY_TYPES, ENTRY_VERSION, GENESIS_PREV, type Entry, type EntryBody, type EntryType } from './entry.js';
export { formatCheckpoint, parseCheckpoint, signCheckpoint, openCheckpoint, openSignedCheckpoint, type Checkpoint, type OpenedCheckpoint } from './checkpoint.js';
export { parseNote, signNote, verifyNote, noteSignerFor, noteVerifierFor, isValidKeyName, describeSignature, POST_QUANTUM_ALG, type OpenedNote, type OpenNoteOptions, type VerifiedSignature, type Note, type NoteSigner, type NoteVerifier } from './note.js';
export { formatVkey, parseVkey } from './vkey.js';
export type { LogWriter } from './writer.js';
export { assertTenant, isTenant, logOriginOf, TENANT_RE } from './origin.js';
export { Appender, type Appended, type AppenderOptions, type BatchStats, type Durable, type LogAppender, type LogHealth, type SignedTree } from './appender.js';
export { DEFAULT_PACING, type Pacing } from './pacing.js';
export { auditLeaves, DEFAULT_AUDIT_DELAY_MS, type AuditProgress, type LeafAuditOptions } from './leaf-audit.js';
export { checkSignedTree } from './open-check.js';
export { verifyLog, type Finding, type FindingKind, type LogReport, type VerifyLogOptions } from './verify-log.js';
export type { Attachment, Batch, EntryBatch, LogStorage, StoredCheckpoint, StoredEntry } from './storage.js';
export { checkExtends, type ExtendsFailure, type ExtendsResult } from './consistency.js';
export { KeyHistoryFold, readKeyHistory, historyVerifiers, keyHistoryCheck, rotateEntryBody, revokeEntryBody, sameKey, sameSet, type HistoryKey, type KeyHistory, type KeySet, type PublicKey } from './key-history.js';
export { checkKeyWindows, keySetsAt, type KeyWindow } from './key-window.js';
export { checkHandovers, type HandoverProblem } from './key-handover.js';
export { openStrict } from './open-strict.js';
