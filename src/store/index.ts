// The store port (portable). Node's SQLite store and data directory are in ./node.ts.
export type { LogStore, DocumentKind, Batch, LogStorage, StoredCheckpoint, StoredEntry } from './port.js';
export { applyMigrations, orderMigrations, type Migration, type MigrationTarget } from './migrations.js';
export { signedPrefix } from './signed-prefix.js';
