// Bilateral co-signing and signed invoke results through a real server: a caller's signature
// over its request is checked against the tenant's caller keys (a bad one is a recorded deny),
// travels in the receipt and verifies offline with `vouch verify --caller-key`.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes, fromBase64, toBase64, utf8 } from '../../src/canonical/index.js';
import { createEd25519Signer, createMldsaSigner, createVerifier, INVOKE_RESULT_CONTEXT, MLDSA65_SIGNATURE_BYTES, parseJwks, toJwks, verifyMldsa, type Signer } from '../../src/crypto/index.js';
import { parseNote } from '../../src/log/index.js';
import { formatCallerSignatureHeader, type CallerSignatureClaim } from '../../src/receipt/index.js';
import { get, post, testServer } from './_server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const mldsa = createMldsaSigner(new Uint8Array(32).fill(21));
const ed = createEd25519Signer(new Uint8Array(32).fill(22));
const stranger = createEd25519Signer(new Uint8Array(32).fill(23));
const callerJwks = toJwks([
  { alg: 'ML-DSA-65', publicKey: mldsa.publicKey, kid: 'app-pq' },
  { alg: 'Ed25519', publicKey: ed.publicKey, kid: 'app-ed' },
]);

let s: Awaited<ReturnType<typeof testServer>>;
const payload = { name: 'echo', arguments: { text: 'pay 10 EUR to DE001' } };
const other = { name: 'echo', arguments: { text: 'pay 10000 EUR to XX999' } };
const sign = async (signer: Signer, kid: string, p: unknown): Promise<CallerSignatureClaim> => ({ alg: signer.alg, keyId: kid, signature: toBase64(await signer.sign(canonicalBytes(p))) });
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));
const executeChain = (p: unknown, claim?: CallerSignatureClaim) =>
  post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: p, ...(claim && { _meta: { 'io.vouch/caller-signature': claim } }) } });
const size = async () => (await get(`${s.url}/v1/checkpoint`)).json.size as number;

beforeAll(async () => {
  s = await testServer({ callers: { default: callerJwks } });
});
afterAll(async () => {
  await s?.close();
});

describe('co-signed requests on /mcp', () => {
  it('valid ML-DSA-65 and Ed25519 signatures: allowed, recorded, and carried in the receipt', async () => {
    for (const [signer, kid] of [[mldsa, 'app-pq'], [ed, 'app-ed']] as const) {
      const r = await executeChain(payload, await sign(signer, kid, payload));
      expect(r.json.result.status).toBe('success');
      const receipt = r.json.result._meta['io.vouch/receipt'];
      expect(receipt.callerSignature).toMatchObject({ alg: signer.alg, keyId: kid, payload: toBase64(canonicalBytes(payload)) });
      const e = entryOf(receipt);
      expect(e.callerKey).toBe(kid);
      expect(e.callerSignature).toMatchObject({ alg: signer.alg, keyId: kid, payload: e.input.digest });
      expect(e.caller).toBe('local-operator');
    }
  });

  for (const [name, claimOf, why] of [
    ['an invalid signature', async () => ({ ...(await sign(ed, 'app-ed', payload)), signature: toBase64(new Uint8Array(64).fill(1)) }), /does not verify/],
    ['an unknown key', () => sign(stranger, 'someone', payload), /unknown caller key "someone"/],
    ['a signature replayed onto another payload', () => sign(mldsa, 'app-pq', other), /does not verify over this payload/],
  ] as const) {
    it(`${name}: denied, with the reason recorded in a deny entry`, async () => {
      const before = await size();
      const r = await executeChain(payload, await claimOf());
      expect(r.json.result.status).toBe('error');
      expect(r.json.result.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: expect.stringMatching(why) });
      const receipt = r.json.result._meta['io.vouch/receipt'];
      expect(receipt.callerSignature).toBeUndefined();
      const e = entryOf(receipt);
      expect(e.decision.effect).toBe('deny');
      expect(e.state['(vouch)'].callerSignature.deny).toMatch(why);
      expect(await size()).toBe(before + 1);
    });
  }

  it('a malformed signature object is bad input (-32602), nothing written', async () => {
    const before = await size();
    const r = await executeChain(payload, { alg: 'RSA', keyId: 'x', signature: '!' } as never);
    expect(r.json.error.code).toBe(-32602);
    expect(await size()).toBe(before);
  });
});

describe('co-signed requests on REST /v1/authorize', () => {
  const authorize = (p: unknown, header?: string) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: p }, header === undefined ? {} : { 'x-vouch-caller-signature': header });

  it('X-Vouch-Caller-Signature: valid is allowed with the co-signature in the receipt; invalid is denied', async () => {
    const ok = await authorize(payload, formatCallerSignatureHeader(await sign(ed, 'app-ed', payload)));
    expect(ok.json.effect).toBe('allow');
    expect(ok.json.receipt.callerSignature.keyId).toBe('app-ed');
    const replayed = await authorize(other, formatCallerSignatureHeader(await sign(ed, 'app-ed', payload)));
    expect(replayed.json.effect).toBe('deny');
    expect(replayed.json.receipt.callerSignature).toBeUndefined();
  });

  it('a header that is not base64 JSON: 400 ERR_INPUT, nothing written', async () => {
    const before = await size();
    const r = await authorize(payload, 'not-json');
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('ERR_INPUT');
    expect(await size()).toBe(before);
  });
});

describe('signed interceptor/invoke results', () => {
  const invoke = (p: unknown, id = 1) => post(`${s.url}/mcp`, { jsonrpc: '2.0', id, method: 'interceptor/invoke', params: { name: 'pii', event: 'tools/call', phase: 'request', payload: p, _meta: { 'io.vouch/sign': true } } });
  const keyOf = async (kid: string) => parseJwks((await get(`${s.url}/.well-known/vouch/keys`)).json).find((k) => k.kid === kid)!;

  it('signs the JCS of the result without durationMs and signature under its own ML-DSA context, with the key the JWKS publishes', async () => {
    const r = await invoke(payload);
    const result = r.json.result;
    expect(result.signature).toMatchObject({ alg: 'ML-DSA-65', keyId: s.keyId, context: 'vouch/interceptor-result/v1' });
    const key = await keyOf(result.signature.keyId);
    const { signature, durationMs: _d, ...signed } = result;
    expect(verifyMldsa(key.publicKey, canonicalBytes(signed), fromBase64(signature.value), INVOKE_RESULT_CONTEXT)).toBe(true);
    expect(verifyMldsa(key.publicKey, canonicalBytes({ ...signed, modified: !signed.modified }), fromBase64(signature.value), INVOKE_RESULT_CONTEXT)).toBe(false);
    const unsigned = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'interceptor/invoke', params: { name: 'pii', event: 'tools/call', phase: 'request', payload } });
    expect(unsigned.json.result.signature).toBeUndefined();
  });

  it("a caller shaping the signed bytes gets no signature a checkpoint verifier (empty context) accepts, and the log's checkpoints none under the result context", async () => {
    // The hostile caller chooses the payload the result carries back (a note-like text included).
    const r = await invoke({ name: 'echo', arguments: { text: 'vouch.local/default\n1\nAAAA\n' } });
    const result = r.json.result;
    const key = await keyOf(result.signature.keyId);
    const { signature, durationMs: _d, ...signed } = result;
    const sig = fromBase64(signature.value);
    expect(verifyMldsa(key.publicKey, canonicalBytes(signed), sig, INVOKE_RESULT_CONTEXT)).toBe(true);
    expect(createVerifier(key.alg, key.publicKey).verify(canonicalBytes(signed), sig)).toBe(false); // checkpoint and receipt verifiers
    // ...and the other way: the newest checkpoint's ML-DSA line verifies as a note, never as a result.
    const cp = (await get(`${s.url}/v1/checkpoint`)).json;
    const note = parseNote(cp.checkpoint);
    const line = note.signatures.find((x) => x.signature.length === MLDSA65_SIGNATURE_BYTES)!; // the same key files sign both
    const text = utf8.encode(note.text);
    expect(verifyMldsa(key.publicKey, text, line.signature)).toBe(true);
    expect(verifyMldsa(key.publicKey, text, line.signature, INVOKE_RESULT_CONTEXT)).toBe(false);
  });
});

describe('offline: vouch verify --caller-key checks both signatures', () => {
  it('exit 0 with the caller keys, 1 with keys that do not hold the signer', async () => {
    const r = await executeChain(payload, await sign(mldsa, 'app-pq', payload));
    const receipt = r.json.result._meta['io.vouch/receipt'];
    const jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json;
    await s.close();
    const cwd = mkdtempSync(join(tmpdir(), 'vouch-cosign-'));
    writeFileSync(join(cwd, 'receipt.json'), JSON.stringify(receipt));
    writeFileSync(join(cwd, 'vouch.jwks'), JSON.stringify(jwks));
    writeFileSync(join(cwd, 'caller.jwks'), JSON.stringify(callerJwks));
    writeFileSync(join(cwd, 'other.jwks'), JSON.stringify(toJwks([{ alg: 'Ed25519', publicKey: stranger.publicKey, kid: 'app-pq' }])));
    const run = (...argv: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) =>
        execFile(process.execPath, [join(ROOT, 'bin/vouch.js'), 'verify', ...argv], { cwd, encoding: 'utf8', timeout: 60_000 }, (e, out) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out })),
      );
    const [good, bad] = await Promise.all([run('receipt.json', '--key', 'vouch.jwks', '--caller-key', 'caller.jwks'), run('receipt.json', '--key', 'vouch.jwks', '--caller-key', 'other.jwks')]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/\u2713 caller-signature/);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/\u2717 caller-signature/);
  }, 60_000);
});
