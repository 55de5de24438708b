// The cosignature record's tables and queries, shared by the Node store (better-sqlite3, beside the
// log databases) and the Worker's (the tenant log object's own SQLite storage). Portable: SQL text only.
export const COSIG_SCHEMA = `
CREATE TABLE IF NOT EXISTS cosignatures (origin TEXT NOT NULL, size INTEGER NOT NULL, root TEXT NOT NULL, cosigner TEXT NOT NULL, line TEXT NOT NULL, ts INTEGER NOT NULL, PRIMARY KEY (origin, size, root, line));
CREATE TABLE IF NOT EXISTS witness_acked (origin TEXT NOT NULL, witness TEXT NOT NULL, size INTEGER NOT NULL, root TEXT NOT NULL, PRIMARY KEY (origin, witness));
`;

export const COSIG_SQL = {
  lines: 'SELECT line FROM cosignatures WHERE origin = ? AND size = ? AND root = ? ORDER BY cosigner, ts',
  insert: 'INSERT OR IGNORE INTO cosignatures (origin, size, root, cosigner, line, ts) VALUES (?, ?, ?, ?, ?, ?)',
  // (origin, size, ...) is the primary key's prefix: the newest size is one index step.
  newest: 'SELECT size, root FROM cosignatures WHERE origin = ? AND cosigner != ? ORDER BY size DESC LIMIT 1',
  by: 'SELECT cosigner, MAX(ts) AS ts FROM cosignatures WHERE origin = ? AND size = ? AND root = ? AND cosigner != ? GROUP BY cosigner ORDER BY cosigner',
  acked: 'SELECT size, root FROM witness_acked WHERE origin = ? AND witness = ?',
  setAcked: 'INSERT INTO witness_acked (origin, witness, size, root) VALUES (?, ?, ?, ?) ON CONFLICT(origin, witness) DO UPDATE SET size = excluded.size, root = excluded.root',
} as const;
