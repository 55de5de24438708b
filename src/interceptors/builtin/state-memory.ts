// In-memory state stores for one process (tests, single-node dev). Durable stores implement
// the same interfaces from builtin/types.ts.
import { digestBytes, utf8 } from '../../canonical/index.js';
import type { Json } from '../types.js';
import type { CounterStore, StateStores, TaintMatch, TaintStore, ToolSchema, ToolSchemaCache } from './types.js';

export function createMemoryCounterStore(): CounterStore {
  const windows = new Map<string, { windowStart: string; count: number }>();
  return {
    hit(key, windowStart) {
      const w = windows.get(key);
      // A new window start resets the count: fixed windows, keyed by the caller's clock.
      if (!w || w.windowStart !== windowStart) {
        windows.set(key, { windowStart, count: 1 });
        return 1;
      }
      w.count += 1;
      return w.count;
    },
  };
}

export function createMemoryTaintStore(): TaintStore {
  const sessions = new Map<string, Map<string, TaintMatch>>();
  return {
    add(sessionId, server, values) {
      let s = sessions.get(sessionId);
      if (!s) sessions.set(sessionId, (s = new Map()));
      for (const v of values) {
        if (v.length === 0 || s.has(v)) continue;
        s.set(v, { server, fingerprint: digestBytes(utf8.encode(v)) });
      }
    },
    find(sessionId, text) {
      const s = sessions.get(sessionId);
      if (!s) return [];
      const out: TaintMatch[] = [];
      for (const [v, m] of s) if (text.includes(v)) out.push({ ...m });
      return out;
    },
  };
}

export function createMemoryToolSchemaCache(): ToolSchemaCache {
  const servers = new Map<string, Map<string, Json>>();
  return {
    set(server, tools: ToolSchema[]) {
      let s = servers.get(server);
      if (!s) servers.set(server, (s = new Map()));
      for (const t of tools) s.set(t.name, t.inputSchema);
    },
    get(server, tool) {
      return servers.get(server)?.get(tool);
    },
  };
}

export function createMemoryStateStores(): StateStores {
  return {
    counters: createMemoryCounterStore(),
    taint: createMemoryTaintStore(),
    toolSchemas: createMemoryToolSchemaCache(),
  };
}
