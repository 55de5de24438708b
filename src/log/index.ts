// The log: entry format, Merkle tree, signed notes and checkpoints, group commit, fsck.
export * from './merkle.js';
export { encodeEntry, decodeEntry, ENTRY_TYPES, ENTRY_VERSION, GENESIS_PREV, type Entry, type EntryBody, type EntryType } from './entry.js';
export { formatCheckpoint, parseCheckpoint, signCheckpoint, openCheckpoint, type Checkpoint } from './checkpoint.js';
export { parseNote, signNote, verifyNote, noteSignerFor, noteVerifierFor, isValidKeyName, type Note, type NoteSigner, type NoteVerifier } from './note.js';
export { formatVkey, parseVkey } from './vkey.js';
export { Appender, type Appended, type AppenderOptions, type BatchStats, type LogAppender } from './appender.js';
export { verifyLog, type Finding, type FindingKind, type LogReport, type VerifyLogOptions } from './verify-log.js';
export type { Attachment, Batch, LogStorage, StoredCheckpoint, StoredEntry } from './storage.js';
export { checkExtends, type ExtendsFailure, type ExtendsResult } from './consistency.js';
