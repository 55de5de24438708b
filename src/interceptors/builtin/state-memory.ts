// In-memory state stores for one process (`vouch serve`, the gateway, tests). Durable stores
// implement the same interfaces from builtin/types.ts. Keys arrive scoped (state-scope.ts).
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
  const scopes = new Map<string, Map<string, TaintMatch>>();
  return {
    add(scope, server, values) {
      let s = scopes.get(scope);
      if (!s) scopes.set(scope, (s = new Map()));
      for (const v of values) {
        if (v.length === 0 || s.has(v)) continue;
        s.set(v, { server, fingerprint: digestBytes(utf8.encode(v)) });
      }
    },
    find(scope, text) {
      const s = scopes.get(scope);
      if (!s) return [];
      const out: TaintMatch[] = [];
      for (const [v, m] of s) if (text.includes(v)) out.push({ ...m });
      return out;
    },
  };
}

export function createMemoryToolSchemaCache(): ToolSchemaCache {
  const servers = new Map<string, Map<string, Json>>();
  // Scope and server as one key: JSON of the pair, so no pair of strings can forge another's.
  const keyOf = (scope: string, server: string) => JSON.stringify([scope, server]);
  return {
    set(scope, server, tools: ToolSchema[]) {
      const k = keyOf(scope, server);
      let s = servers.get(k);
      if (!s) servers.set(k, (s = new Map()));
      for (const t of tools) s.set(t.name, t.inputSchema);
    },
    get(scope, server, tool) {
      return servers.get(keyOf(scope, server))?.get(tool);
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
