// The Worker as deployed code, end to end from outside: `wrangler dev --local` (real workerd,
// the real bundle, a SQLite Durable Object) on a loopback port; a receipt from POST /mcp
// verifies with `vouch verify` and the published JWKS; the whole log, read back over the REST
// API, links, hashes to the signed root, and each checkpoint extends the one before; the audit
// bundle the Worker exports verifies with `vouch verify BUNDLE`, its decisions replayed on Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, fromHex, toHex, utf8 } from '../../src/canonical/index.js';
import { formatKeyText } from '../../src/crypto/index.js';
import { generateSeed } from '../../src/crypto/node.js';
import { decodeEntry, emptyRange, extendRange, GENESIS_PREV, hashLeaf, openCheckpoint, rangeRoot, verifyConsistency } from '../../src/log/index.js';
import { parseTrust, verifiersFor } from '../../src/receipt/index.js';
import { ROOT, startDev, type DevServer } from './_wrangler.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-wrangler-dev-'));
let dev: DevServer;

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${dev.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const get = async (path: string) => {
  const res = await fetch(`${dev.url}${path}`);
  return { status: res.status, json: (await res.json()) as any };
};
/** The CLI, run asynchronously: a blocked event loop would leave stale keep-alive sockets to the dev server. */
const vouch = (...args: string[]) =>
  new Promise<{ status: number | null; out: string }>((resolve) =>
    execFile(process.execPath, [join(ROOT, 'bin/vouch.js'), ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, out: stdout + stderr }),
    ),
  );

beforeAll(async () => {
  // A fresh key for this run, handed to wrangler as the secrets a deployment would have.
  const env = [`VOUCH_SIGNING_KEY='${formatKeyText('ML-DSA-65', generateSeed()).trim()}'`, `VOUCH_ED25519_KEY='${formatKeyText('Ed25519', generateSeed()).trim()}'`].join('\n');
  writeFileSync(join(dir, '.env'), `${env}\n`, { mode: 0o600 });
  dev = await startDev({ persist: join(dir, 'state'), envFile: join(dir, '.env') });
}, 180_000);

afterAll(async () => {
  await dev?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('wrangler dev: the Worker from outside', () => {
  it('a receipt from POST /mcp verifies with `vouch verify` and the JWKS; a changed byte does not', async () => {
    const r = await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'mail me at a@example.com' } } } });
    expect(r.status, dev.output()).toBe(200);
    expect(r.json.result.finalPayload.arguments.text).not.toContain('a@example.com');
    const receipt = r.json.result._meta['io.vouch/receipt'];
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify(receipt));
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify((await get('/.well-known/vouch/keys')).json));
    const ok = await vouch('verify', 'receipt.json', '--key', 'jwks.json', '--origin', 'vouch.local/default');
    expect(ok.status, ok.out).toBe(0);

    const bytes = fromBase64(receipt.entry);
    bytes[bytes.length - 2] ^= 1;
    writeFileSync(join(dir, 'tampered.json'), JSON.stringify({ ...receipt, entry: Buffer.from(bytes).toString('base64') }));
    const bad = await vouch('verify', 'tampered.json', '--key', 'jwks.json');
    expect(bad.status, bad.out).toBe(1);
  });

  it('the whole log, read over REST, links entry to entry, hashes to the signed root, and only grows', async () => {
    for (let i = 0; i < 3; i++) await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: i === 1 ? 'dangerous_tool' : 'echo', arguments: { text: `n${i}` } } });
    const first = (await get('/v1/checkpoint')).json;
    await post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'one more' } } });
    const cp = (await get('/v1/checkpoint')).json;
    expect(cp.size).toBe(first.size + 1);

    // Leaves, links and root from the exact entry bytes (each entry's receipt carries them).
    let range = emptyRange();
    let prev = GENESIS_PREV;
    const types: string[] = [];
    for (let seq = 0; seq < cp.size; seq++) {
      const e = (await get(`/v1/entries/${seq}`)).json;
      const bytes = fromBase64(e.receipt.entry);
      const entry = decodeEntry(bytes);
      expect(entry).toMatchObject({ seq, prev, log: cp.origin });
      types.push(entry.type);
      const leaf = hashLeaf(bytes);
      range = extendRange(range, [leaf]);
      prev = toHex(leaf);
    }
    expect(types[0]).toBe('policy');
    expect(types.slice(1).every((t) => t === 'decision')).toBe(true);
    expect(toHex(rangeRoot(range))).toBe(cp.root);

    // The checkpoint is signed by the published key, for this origin, over this root.
    const trust = parseTrust(JSON.stringify((await get('/.well-known/vouch/keys')).json));
    const opened = openCheckpoint(cp.checkpoint, verifiersFor(trust, cp.checkpoint));
    expect(opened).toMatchObject({ origin: cp.origin, size: cp.size });
    expect(toHex(opened.root)).toBe(cp.root);

    // And it extends the earlier checkpoint (RFC 9162 consistency proof).
    const cons = (await get(`/v1/proofs/consistency?from=${first.size}&to=${cp.size}`)).json;
    expect(verifyConsistency(first.size, cp.size, fromHex(first.root), fromHex(cp.root), cons.proof.map(fromHex))).toBe(true);
    expect(utf8.decode(fromBase64((await get('/v1/entries/0')).json.receipt.entry))).toContain('"type":"policy"');
  });

  it('the bundle from GET /v1/export verifies with `vouch verify`: decisions made in workerd replay to match on Node', async () => {
    const res = await fetch(`${dev.url}/v1/export?payloads=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    writeFileSync(join(dir, 'bundle.tar.gz'), Buffer.from(await res.arrayBuffer()));
    const size = (await get('/v1/checkpoint')).json.size as number;
    const r = await vouch('verify', 'bundle.tar.gz', '--key', 'jwks.json', '--json');
    expect(r.status, r.out).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ ok: true, origin: 'vouch.local/default', range: { from: 0, to: size }, findings: [] });
    expect(report.replay).toMatchObject({ mismatch: 0, unreplayable: 0, match: size - 1 });
  });

  it("POST /v1/replay on the Worker itself replays its decisions to match (no code generation in workerd)", async () => {
    const size = (await get('/v1/checkpoint')).json.size as number;
    const r = await post('/v1/replay', { from: 0, to: size });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json, JSON.stringify(r.json).slice(0, 600)).toMatchObject({ ok: true, mismatch: 0, unreplayable: 0, match: size - 1 });
  });
});
