// The cosignature record on Workers: the same tables and queries as Node's (cosig-schema.ts) in the
// tenant log object's own SQLite storage, so the cosignatures live with the checkpoints they cover.
// Portable over the Durable Object SQL API (store/durable-object.ts's slice of it).
import type { DurableSqlStorage } from '../store/durable-object.js';
import { COSIG_SCHEMA, COSIG_SQL } from './cosig-schema.js';
import type { CosignatureStore } from './cosig-store.js';

export function openDurableCosignatureStore(storage: DurableSqlStorage): CosignatureStore {
  const rows = (sql: string, ...b: unknown[]) => storage.sql.exec(sql, ...b).toArray();
  for (const stmt of COSIG_SCHEMA.split(';').map((s) => s.trim()).filter(Boolean)) storage.sql.exec(stmt);
  return {
    lines: (origin, size, root) => rows(COSIG_SQL.lines, origin, size, root).map((r) => r.line as string),
    newestCosigned(origin, self) {
      const [row] = rows(COSIG_SQL.newest, origin, self);
      if (!row) return undefined;
      const by = rows(COSIG_SQL.by, origin, Number(row.size), row.root, self);
      return { size: Number(row.size), root: row.root as string, witnesses: by.map((r) => r.cosigner as string), ts: Math.max(...by.map((r) => Number(r.ts))) };
    },
    add: (origin, size, root, cosigner, lines, ts) =>
      storage.transactionSync(() => {
        for (const l of lines) storage.sql.exec(COSIG_SQL.insert, origin, size, root, cosigner, l, ts);
      }),
    acked(origin, witness) {
      const [r] = rows(COSIG_SQL.acked, origin, witness);
      return r && { size: Number(r.size), root: r.root as string };
    },
    setAcked: (origin, witness, size, root) => void storage.sql.exec(COSIG_SQL.setAcked, origin, witness, size, root),
    /** The storage belongs to the object: nothing to close. */
    close: () => undefined,
  };
}
