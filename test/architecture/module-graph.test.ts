// The module graph of src/ (STYLE.md: imports flow one way): no cycle between top-level modules,
// and the decision path (decide and everything below it) imports no adapter. Read from the source
// text, so a new import that closes a cycle fails here before anyone has to untangle it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');
const ADAPTERS = ['http', 'mcp', 'cli', 'worker'];
/** The layers, lowest first (README "Layout"): a module imports only modules listed before it. */
const LAYERS = ['errors', 'clock', 'backoff', 'periodic', 'canonical', 'crypto', 'log', 'timestamp', 'receipt', 'protocol', 'enrich', 'entries', 'policy', 'interceptors', 'execution', 'decide', 'store', 'observe', 'witness', 'audit', 'http', 'mcp', 'worker', 'cli'];
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** src/x/... -> x, src/x.ts -> x. */
const moduleOf = (file: string) => {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.(ts|mts|mjs|js)$/, '');
};

/** Module -> modules it imports, each edge with one file that makes it (for the failure message). */
function moduleGraph(): Map<string, Map<string, string>> {
  const g = new Map<string, Map<string, string>>();
  for (const f of sourceFiles(SRC)) {
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const target = normalize(join(dirname(f), m[1] ?? m[2]));
      if (!target.startsWith(SRC + sep)) continue;
      const a = moduleOf(f);
      const b = moduleOf(target);
      if (a === b) continue;
      if (!g.has(a)) g.set(a, new Map());
      if (!g.get(a)!.has(b)) g.get(a)!.set(b, `${relative(SRC, f)} -> ${relative(SRC, target)}`);
    }
  }
  return g;
}

/** Strongly connected components with more than one module (Tarjan). */
function cyclesOf(g: Map<string, Map<string, string>>): string[][] {
  let i = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Every module reachable from `start` (its own imports, transitively). */
function reachable(g: Map<string, Map<string, string>>, start: string): Set<string> {
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length) for (const w of g.get(todo.pop()!)?.keys() ?? []) if (!seen.has(w)) (seen.add(w), todo.push(w));
  return seen;
}

describe('module graph of src/', () => {
  const g = moduleGraph();

  it('has no cycle between top-level modules', () => {
    const described = cyclesOf(g).map((c) => c.map((a) => `${a}: ${c.filter((b) => g.get(a)?.has(b)).map((b) => g.get(a)!.get(b)).join(', ')}`).join('; '));
    expect(described).toEqual([]);
  });

  it('finds a cycle when one exists (the check itself works)', () => {
    const fake = new Map([
      ['policy', new Map([['interceptors', 'x']])],
      ['interceptors', new Map([['policy', 'y']])],
      ['decide', new Map([['policy', 'z']])],
    ]);
    expect(cyclesOf(fake)).toEqual([['interceptors', 'policy']]);
  });

  it('the decision path reaches no adapter: decide and all it imports stay below http, mcp, cli, worker', () => {
    expect(g.has('decide')).toBe(true);
    expect([...reachable(g, 'decide')].filter((m) => ADAPTERS.includes(m))).toEqual([]);
  });

  it('shared primitives are defined in one place each: Json, JSON-RPC codes, the tenant pattern, the log origin rule', () => {
    const defs: [string, RegExp, string][] = [
      ['Json', /export type Json\s*=/g, 'canonical/json.ts'],
      ['JSON-RPC codes', /-32700/g, 'protocol/jsonrpc.ts'],
      ['tenant pattern', /\[a-z0-9\]\[a-z0-9_-\]\{0,62\}/g, 'log/origin.ts'],
      ['log origin rule', /`\$\{keyName\}\/\$\{tenant\}`/g, 'log/origin.ts'],
    ];
    const files = sourceFiles(SRC).map((f) => ({ f: relative(SRC, f), text: readFileSync(f, 'utf8') }));
    for (const [what, re, home] of defs) {
      const where = files.filter(({ text }) => (text.match(re) ?? []).length > 0).map(({ f }) => f);
      expect(where, what).toEqual([home]);
    }
  });

  it('every import goes down the layers (a new module needs a place in LAYERS)', () => {
    expect([...g.keys()].filter((m) => !LAYERS.includes(m))).toEqual([]);
    const upward = [...g].flatMap(([a, targets]) => [...targets].filter(([b]) => LAYERS.indexOf(b) >= LAYERS.indexOf(a)).map(([, via]) => via));
    expect(upward).toEqual([]);
  });

  it('core modules import no adapter', () => {
    for (const core of ['canonical', 'crypto', 'log', 'timestamp', 'receipt', 'protocol', 'policy', 'interceptors', 'execution', 'decide', 'store', 'audit']) {
      expect([...(g.get(core)?.keys() ?? [])].filter((m) => ADAPTERS.includes(m)), core).toEqual([]);
    }
  });
});
