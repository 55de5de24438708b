// The Worker bundle (what `npm run build:worker` deploys) builds offline, and no Node-only
// module reaches it: esbuild's own import list and a scan of the output text, both checked.
import { builtinModules } from 'node:module';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, type Run } from './_wrangler.js';

const out = mkdtempSync(join(tmpdir(), 'vouch-worker-'));
let build: Run;
let meta: { inputs: Record<string, unknown>; outputs: Record<string, { imports?: { path: string; external?: boolean }[] }> };
let code: string;

beforeAll(async () => {
  build = await buildWorker(out);
  if (build.code === 0) {
    meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8'));
    code = readFileSync(join(out, 'worker.js'), 'utf8');
  }
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Modules of the log and the engine that wrangler uploads beside worker.js (rules in wrangler.toml). */
const SIBLING = /^\.\/[0-9a-f]{40}-(\d{4}_[a-z0-9_]+\.sql|cedar_wasm_bg\.wasm)$/;
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Sources that are Node-only by design (their headers say so): none may be bundled. */
const NODE_ONLY_INPUTS = [
  'node_modules/better-sqlite3/',
  'node_modules/@hono/node-server/',
  'node_modules/@cedar-policy/cedar-wasm/nodejs/',
  'src/store/sqlite.ts',
  'src/store/sqlite-append.ts',
  'src/store/sqlite-open.ts',
  'src/store/sqlite-payloads.ts',
  'src/store/sqlite-pruned.ts',
  'src/store/sqlite-rows.ts',
  'src/store/data-dir.ts',
  'src/store/data-dir-init.ts',
  'src/store/data-dir-key-files.ts',
  'src/store/data-dir-layout.ts',
  'src/store/data-dir-log.ts',
  'src/store/data-dir-unopened.ts',
  'src/store/node.ts',
  'src/crypto/node.ts',
  'src/crypto/key-file.ts',
  'src/crypto/worker-signer.ts',
  'src/policy/load-config.ts',
  'src/http/node-server.ts',
  'src/http/node-app-deps.ts',
  'src/http/node-key-admin.ts',
  'src/http/tenant-logs.ts',
  'src/http/validated-policy-sets.ts',
  'src/cli/',
];

describe('the Worker bundle', () => {
  it('builds offline with wrangler deploy --dry-run', () => {
    expect(build.code, build.stderr + build.stdout).toBe(0);
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['worker.js', 'meta.json']));
  });

  it("imports nothing but cloudflare:workers and its own migration and Cedar modules (esbuild's list)", () => {
    const imports = Object.entries(meta.outputs)
      .filter(([name]) => name.endsWith('worker.js'))
      .flatMap(([, o]) => o.imports ?? [])
      .filter((i) => i.external)
      .map((i) => i.path);
    expect(imports.filter((p) => p !== 'cloudflare:workers' && !SIBLING.test(p))).toEqual([]);
    expect(imports.filter((p) => p.endsWith('.sql'))).toHaveLength(readdirSync(join(out)).filter((f) => f.endsWith('.sql')).length);
    expect(imports.some((p) => p.endsWith('cedar_wasm_bg.wasm'))).toBe(true);
  });

  it('bundles no Node-only source: the Cedar web build, no SQLite driver, no file loading', () => {
    const inputs = Object.keys(meta.inputs).map((p) => p.replace(/\\/g, '/'));
    for (const bad of NODE_ONLY_INPUTS) expect(inputs.filter((p) => p.includes(bad)), bad).toEqual([]);
    expect(inputs.some((p) => p.includes('@cedar-policy/cedar-wasm/web/'))).toBe(true);
    expect(inputs.some((p) => p.endsWith('src/store/durable-object.ts'))).toBe(true);
  });

  it('bundles the MCP 2026-07-28 path: mcp-modern.ts and the SDK v2 server with its workerd shim, never its Node shim', () => {
    const inputs = Object.keys(meta.inputs).map((p) => p.replace(/\\/g, '/'));
    expect(inputs.some((p) => p.endsWith('src/http/mcp-modern.ts'))).toBe(true);
    // The SDK picks its JSON Schema validator by export condition (@modelcontextprotocol/server/_shims):
    // workerd's validates with @cfworker/json-schema; the Node one imports node:process and ajv.
    expect(inputs.some((p) => p.endsWith('@modelcontextprotocol/server/dist/shimsWorkerd.mjs'))).toBe(true);
    expect(inputs.filter((p) => /@modelcontextprotocol\/server\/dist\/(shimsNode|stdio|ajvProvider)/.test(p))).toEqual([]);
    // The dynamic import that loads the 2026 path is bundled in (no module is fetched at run time).
    expect(code).not.toMatch(/\bimport\s*\(\s*["'][^"']*mcp-modern/);
  });

  it('has no node: import and no require of a Node builtin anywhere in its text', () => {
    const specifiers = [
      ...code.matchAll(/\bfrom\s*["']([^"']+)["']/g),
      ...code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
      ...code.matchAll(/\bimport\s*["']([^"']+)["']/g),
      ...code.matchAll(/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g),
    ].map((m) => m[1]);
    expect(specifiers.filter((s) => s.startsWith('node:') || NODE_BUILTINS.has(s))).toEqual([]);
  });

  it('fits the Workers Free plan limit (3 MiB compressed)', () => {
    const gz = readdirSync(out)
      .filter((f) => !f.endsWith('.map') && f !== 'meta.json' && f !== 'README.md')
      .reduce((n, f) => n + gzipSync(readFileSync(join(out, f))).length, 0);
    expect(gz).toBeLessThan(3 * 1024 * 1024);
  });
});
