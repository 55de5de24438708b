// Node-only stores: SQLite and the data directory. Never imported by the core or the Worker.
export { openSqliteStore, loadMigrations, ENTRY_CODEC_META, type SqliteStoreOptions } from './sqlite.js';
export { openDataDir, initDataDir, keyPaths, loadKeys, readKeySeeds, listTenants, logPath, DEFAULT_DATA_DIR, DEFAULT_KEY_NAME, type DataDir, type TenantLog, type KeyInfo, type OpenOptions, type InitResult } from './data-dir.js';
export { syncArchive, tenantArchiveDir, defaultArchiveRoot, type ArchiveSync } from './archive-write.js';
export { openArchiveView, checkArchiveEdge, type ArchiveFinding, type ArchiveView } from './archive-read.js';
