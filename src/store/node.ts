// Node-only stores: SQLite and the data directory. Never imported by the core or the Worker.
export { openSqliteStore, archiveMissing, checkPrunedOpen, loadMigrations, ENTRY_CODEC_META, compressFromMeta, type SqliteStoreOptions, type SqliteLogStore } from './sqlite.js';
export { pruneToArchive, type PruneResult } from './archive-prune.js';
export { acquireLogLock } from './lock.js';
export { openDataDir, type DataDir, type OpenOptions } from './data-dir.js';
export { initDataDir, type InitResult } from './data-dir-init.js';
export { keyPaths, listTenants, logPath, DEFAULT_DATA_DIR } from './data-dir-layout.js';
export { loadKeys, readKeySeeds, DEFAULT_KEY_NAME, type KeyInfo } from './data-dir-key-files.js';
export type { TenantLog } from './data-dir-log.js';
export { syncArchive, tenantArchiveDir, defaultArchiveRoot, type ArchiveSync } from './archive-write.js';
export { openArchiveView, checkArchiveEdge, type ArchiveFinding, type ArchiveView } from './archive-read.js';
export { openPayloadLedger } from './payload-ledger.js';
