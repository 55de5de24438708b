// VouchState: the Durable Object that holds the live state of the stateful built-ins on Workers
// (rate-limit counters, session taint, tool schemas as last listed). One object per counter key,
// per session, per server (state-stores.ts names them), so load spreads; each method is one
// synchronous SQLite transaction, so concurrent isolates cannot race past a limit or miss a taint.
import { DurableObject } from 'cloudflare:workers';
import { digestBytes, utf8 } from '../canonical/index.js';
import type { Json } from '../interceptors/types.js';
import type { TaintMatch, ToolSchema } from '../interceptors/builtin/types.js';
import type { WorkerEnv } from './env.js';

/** Taint (secret values a server returned) is kept this long after a session's last new taint. */
export const TAINT_TTL_MS = 24 * 3600 * 1000;

/** The object's RPC surface, as the Worker's stub sees it. */
export interface StateObjectRpc {
  hit(key: string, windowStart: string): Promise<number>;
  taintAdd(session: string, server: string, values: string[]): Promise<void>;
  taintFind(session: string, text: string): Promise<TaintMatch[]>;
  schemaSet(server: string, tools: ToolSchema[]): Promise<void>;
  schemaGet(server: string, tool: string): Promise<Json | undefined>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, window_start TEXT NOT NULL, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS taint (session TEXT NOT NULL, value TEXT NOT NULL, server TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (session, value));
CREATE TABLE IF NOT EXISTS schemas (server TEXT NOT NULL, tool TEXT NOT NULL, schema TEXT NOT NULL, PRIMARY KEY (server, tool));
`;

export class VouchState extends DurableObject<WorkerEnv> {
  private ready = false;

  private sql() {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(SCHEMA);
      this.ready = true;
    }
    return sql;
  }

  /** Count one hit in the fixed window starting at `windowStart`; a new window starts at 1. */
  hit(key: string, windowStart: string): number {
    const sql = this.sql();
    const row = sql.exec<{ window_start: string; count: number }>('SELECT window_start, count FROM counters WHERE key = ?', key).toArray()[0];
    const count = row && row.window_start === windowStart ? row.count + 1 : 1;
    sql.exec('INSERT INTO counters (key, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count', key, windowStart, count);
    return count;
  }

  /** Values a server returned in a session (the first server to return a value keeps it), as the memory store. */
  async taintAdd(session: string, server: string, values: string[]): Promise<void> {
    const sql = this.sql();
    let added = false;
    for (const v of values) {
      if (v.length === 0) continue;
      const c = sql.exec('INSERT INTO taint (session, value, server, fingerprint) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', session, v, server, digestBytes(utf8.encode(v)));
      added ||= c.rowsWritten > 0;
    }
    // Secret values are not kept for ever: the session's taint goes a day after its last addition.
    if (added) await this.ctx.storage.setAlarm(Date.now() + TAINT_TTL_MS);
  }

  taintFind(session: string, text: string): TaintMatch[] {
    const out: TaintMatch[] = [];
    for (const r of this.sql().exec<{ value: string; server: string; fingerprint: string }>('SELECT value, server, fingerprint FROM taint WHERE session = ? ORDER BY rowid', session)) {
      if (text.includes(r.value)) out.push({ server: r.server, fingerprint: r.fingerprint });
    }
    return out;
  }

  schemaSet(server: string, tools: ToolSchema[]): void {
    const sql = this.sql();
    for (const t of tools) {
      sql.exec('INSERT INTO schemas (server, tool, schema) VALUES (?, ?, ?) ON CONFLICT (server, tool) DO UPDATE SET schema = excluded.schema', server, t.name, JSON.stringify(t.inputSchema));
    }
  }

  schemaGet(server: string, tool: string): Json | undefined {
    const row = this.sql().exec<{ schema: string }>('SELECT schema FROM schemas WHERE server = ? AND tool = ?', server, tool).toArray()[0];
    return row ? (JSON.parse(row.schema) as Json) : undefined;
  }

  async alarm(): Promise<void> {
    this.sql().exec('DELETE FROM taint');
  }
}
