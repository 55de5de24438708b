// VouchState: the Durable Object that holds the live state of the stateful built-ins on Workers
// (rate-limit counters, conversation taint, tool schemas as last listed), and, in one object, the
// published key set (every tenant log's key history, published-keys.ts). One object per counter
// key, per conversation, per principal's server (state-stores.ts names them), so load spreads;
// each method is one synchronous SQLite transaction, so concurrent isolates cannot race past a
// limit or miss a taint. Rows are keyed by the full scope too, not only by the object's name.
import { DurableObject } from 'cloudflare:workers';
import { digestBytes, utf8 } from '../canonical/index.js';
import type { Json } from '../interceptors/types.js';
import type { TaintMatch, ToolSchema } from '../interceptors/builtin/types.js';
import type { WorkerEnv } from './env.js';
import type { KeyWindow } from '../log/index.js';

/** One key of one log's history as published: base64 public key, the name it signs under, its window. */
export interface PublishedKey {
  origin: string;
  name: string;
  alg: string;
  publicKey: string;
  window: KeyWindow;
}

/** Taint (secret values a server returned) is kept this long after a conversation's last new taint. */
export const TAINT_TTL_MS = 24 * 3600 * 1000;

/** The object's RPC surface, as the Worker's stub sees it. */
export interface StateObjectRpc {
  hit(key: string, windowStart: string): Promise<number>;
  taintAdd(scope: string, server: string, values: string[]): Promise<void>;
  taintFind(scope: string, text: string): Promise<TaintMatch[]>;
  schemaSet(scope: string, server: string, tools: ToolSchema[]): Promise<void>;
  schemaGet(scope: string, server: string, tool: string): Promise<Json | undefined>;
  keysPublish(keys: PublishedKey[]): Promise<void>;
  keysPublished(): Promise<PublishedKey[]>;
}

// taint.session holds the conversation scope (state-scope.ts): the column kept its first name.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, window_start TEXT NOT NULL, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS taint (session TEXT NOT NULL, value TEXT NOT NULL, server TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (session, value));
CREATE TABLE IF NOT EXISTS tool_schemas (scope TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL, schema TEXT NOT NULL, PRIMARY KEY (scope, server, tool));
CREATE TABLE IF NOT EXISTS published_keys (origin TEXT NOT NULL, name TEXT NOT NULL, alg TEXT NOT NULL, public_key TEXT NOT NULL, window TEXT NOT NULL, PRIMARY KEY (origin, name, alg, public_key));
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

  /** Values a server returned in a conversation (the first server to return a value keeps it), as the memory store. */
  async taintAdd(scope: string, server: string, values: string[]): Promise<void> {
    const sql = this.sql();
    let added = false;
    for (const v of values) {
      if (v.length === 0) continue;
      const c = sql.exec('INSERT INTO taint (session, value, server, fingerprint) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', scope, v, server, digestBytes(utf8.encode(v)));
      added ||= c.rowsWritten > 0;
    }
    // Secret values are not kept for ever: the conversation's taint goes a day after its last addition.
    if (added) await this.ctx.storage.setAlarm(Date.now() + TAINT_TTL_MS);
  }

  taintFind(scope: string, text: string): TaintMatch[] {
    const out: TaintMatch[] = [];
    for (const r of this.sql().exec<{ value: string; server: string; fingerprint: string }>('SELECT value, server, fingerprint FROM taint WHERE session = ? ORDER BY rowid', scope)) {
      if (text.includes(r.value)) out.push({ server: r.server, fingerprint: r.fingerprint });
    }
    return out;
  }

  schemaSet(scope: string, server: string, tools: ToolSchema[]): void {
    const sql = this.sql();
    for (const t of tools) {
      sql.exec('INSERT INTO tool_schemas (scope, server, tool, schema) VALUES (?, ?, ?, ?) ON CONFLICT (scope, server, tool) DO UPDATE SET schema = excluded.schema', scope, server, t.name, JSON.stringify(t.inputSchema));
    }
  }

  schemaGet(scope: string, server: string, tool: string): Json | undefined {
    const row = this.sql().exec<{ schema: string }>('SELECT schema FROM tool_schemas WHERE scope = ? AND server = ? AND tool = ?', scope, server, tool).toArray()[0];
    return row ? (JSON.parse(row.schema) as Json) : undefined;
  }

  /**
   * Merge keys of log histories into the published set. Only ever tightens: a window once closed
   * (`to`) stays closed and a revocation keeps its smallest size, so a history read earlier and
   * delivered later cannot reopen a retired key or drop a revocation.
   */
  keysPublish(keys: PublishedKey[]): void {
    const sql = this.sql();
    for (const k of keys) {
      const row = sql.exec<{ window: string }>('SELECT window FROM published_keys WHERE origin = ? AND name = ? AND alg = ? AND public_key = ?', k.origin, k.name, k.alg, k.publicKey).toArray()[0];
      const was = row ? (JSON.parse(row.window) as KeyWindow) : undefined;
      const to = was?.to ?? k.window.to;
      const revoked = [was?.revokedAfter, k.window.revokedAfter].filter((x): x is number => x !== undefined);
      const window: KeyWindow = { from: was?.from ?? k.window.from, ...(to !== undefined && { to }), ...(revoked.length && { revokedAfter: Math.min(...revoked) }) };
      sql.exec('INSERT INTO published_keys (origin, name, alg, public_key, window) VALUES (?, ?, ?, ?, ?) ON CONFLICT (origin, name, alg, public_key) DO UPDATE SET window = excluded.window', k.origin, k.name, k.alg, k.publicKey, JSON.stringify(window));
    }
  }

  keysPublished(): PublishedKey[] {
    return this.sql()
      .exec<{ origin: string; name: string; alg: string; public_key: string; window: string }>('SELECT origin, name, alg, public_key, window FROM published_keys ORDER BY origin, name, alg, public_key')
      .toArray()
      .map((r) => ({ origin: r.origin, name: r.name, alg: r.alg, publicKey: r.public_key, window: JSON.parse(r.window) as KeyWindow }));
  }

  async alarm(): Promise<void> {
    this.sql().exec('DELETE FROM taint');
  }
}
