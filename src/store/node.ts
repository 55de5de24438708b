// Node-only stores: SQLite and the data directory. Never imported by the core or the Worker.
export { openSqliteStore, checkPrunedOpen, loadMigrations, ENTRY_CODEC_META, compressFromMeta, type SqliteStoreOptions, type SqliteLogStore } from './sqlite.js';
export { pruneToArchive, type PruneResult } from './archive-prune.js';
export { acquireLogLock } from './lock.js';
export { openDataDir, initDataDir, keyPaths, loadKeys, readKeySeeds, listTenants, logPath, DEFAULT_DATA_DIR, DEFAULT_KEY_NAME, type DataDir, type TenantLog, type KeyInfo, type OpenOptions, type InitResult } from './data-dir.js';
export { syncArchive, tenantArchiveDir, defaultArchiveRoot, type ArchiveSync } from './archive-write.js';
export { openArchiveView, checkArchiveEdge, type ArchiveFinding, type ArchiveView } from './archive-read.js';
export { openPayloadLedger } from './payload-ledger.js';
