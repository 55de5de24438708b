// Bilateral co-signing: the caller's signature over the JCS of its request is checked before the
// decision (a bad one is a recorded deny), and travels in the receipt, where it verifies offline
// together with vouch's checkpoint.
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalBytes, digestBytes, fromBase64, toBase64, utf8 } from '../../src/canonical/index.js';
import { createEd25519Signer, createMldsaSigner, type PublicKeyEntry, type Signer } from '../../src/crypto/index.js';
import { decide, GUARD_STATE_KEY, runPrechecks } from '../../src/decide/index.js';
import { parseDriftConfig } from '../../src/execution/index.js';
import {
  callerVerifier, checkCallerSignature, formatCallerSignatureHeader, parseCallerKeys, parseCallerSignatureClaim, parseCallerSignatureHeader, verifyReceipt,
  type CallerSignatureClaim, type Receipt,
} from '../../src/receipt/index.js';
import { EMPTY_POLICY, keys, T, testLog } from '../execution/_log.js';

const mldsa = createMldsaSigner(new Uint8Array(32).fill(41));
const ed = createEd25519Signer(new Uint8Array(32).fill(42));
const stranger = createEd25519Signer(new Uint8Array(32).fill(43));
const entryOf = (k: Signer, kid: string): PublicKeyEntry => ({ alg: k.alg, publicKey: k.publicKey, kid });
const callerKeys = [entryOf(mldsa, 'app-mldsa'), entryOf(ed, 'app-ed')];

const payload = { name: 'transfer', arguments: { account: 'DE001', amount: 10 } };
const other = { name: 'transfer', arguments: { account: 'XX999', amount: 10_000 } };

async function sign(signer: Signer, kid: string, p: unknown): Promise<CallerSignatureClaim> {
  return { alg: signer.alg, keyId: kid, signature: toBase64(await signer.sign(canonicalBytes(p))) };
}

describe('checkCallerSignature', () => {
  it('accepts ML-DSA-65 and Ed25519 signatures by a configured key', async () => {
    for (const [s, kid] of [[mldsa, 'app-mldsa'], [ed, 'app-ed']] as const) {
      const r = checkCallerSignature(await sign(s, kid, payload), payload, callerKeys);
      expect(r.ok).toBe(true);
      expect(r.record).toMatchObject({ alg: s.alg, keyId: kid, payload: digestBytes(canonicalBytes(payload)) });
      expect(utf8.decode(fromBase64(r.receipt!.payload))).toBe(utf8.decode(canonicalBytes(payload)));
    }
  });

  it('signs the canonical form: member order on the wire does not matter', async () => {
    const reordered = { arguments: { amount: 10, account: 'DE001' }, name: 'transfer' };
    expect(checkCallerSignature(await sign(ed, 'app-ed', payload), reordered, callerKeys).ok).toBe(true);
  });

  it('rejects a changed signature', async () => {
    const claim = await sign(ed, 'app-ed', payload);
    const sig = fromBase64(claim.signature);
    sig[10] ^= 1;
    const r = checkCallerSignature({ ...claim, signature: toBase64(sig) }, payload, callerKeys);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/does not verify/) });
  });

  it('rejects an unknown key, and a key with another algorithm', async () => {
    expect(checkCallerSignature(await sign(stranger, 'stranger', payload), payload, callerKeys).reason).toMatch(/unknown caller key "stranger"/);
    expect(checkCallerSignature(await sign(stranger, 'app-ed', payload), payload, callerKeys).reason).toMatch(/does not verify/);
    expect(checkCallerSignature({ ...(await sign(ed, 'app-ed', payload)), keyId: 'app-mldsa' }, payload, callerKeys).reason).toMatch(/is ML-DSA-65, the signature claims Ed25519/);
    expect(checkCallerSignature(await sign(ed, 'app-ed', payload), payload, []).reason).toMatch(/unknown caller key/);
  });

  it('rejects a signature replayed onto another payload', async () => {
    const r = checkCallerSignature(await sign(mldsa, 'app-mldsa', payload), other, callerKeys);
    expect(r.ok).toBe(false);
    expect(r.record.payload).toBe(digestBytes(canonicalBytes(other)));
  });

  it('parses claims strictly, listing every bad field; the REST header is base64 of the JSON', async () => {
    expect(() => parseCallerSignatureClaim({ alg: 'RSA', keyId: '', signature: '***', extra: 1 })).toThrow(
      expect.objectContaining({ code: 'ERR_INPUT', issues: [expect.objectContaining({ path: '/alg' }), expect.objectContaining({ path: '/keyId' }), expect.objectContaining({ path: '/signature' }), expect.objectContaining({ path: '/extra' })] }),
    );
    const claim = await sign(ed, 'app-ed', payload);
    expect(parseCallerSignatureHeader(formatCallerSignatureHeader(claim))).toEqual(claim);
    expect(() => parseCallerSignatureHeader('not base64!')).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });

  it('reads a callers file {tenant: JWKS}', () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(ed.publicKey).toString('base64url'), kid: 'app-ed', use: 'sig' }] };
    expect(parseCallerKeys({ acme: jwks })).toEqual({ acme: [{ alg: 'Ed25519', publicKey: ed.publicKey, kid: 'app-ed' }] });
    expect(() => parseCallerKeys({ acme: { nokeys: true } })).toThrow(expect.objectContaining({ code: 'ERR_INPUT', issues: [expect.objectContaining({ path: '/acme/keys' })] }));
  });
});

describe('co-signed decisions and their receipts', () => {
  const log = testLog();
  afterAll(() => log.close());
  const drift = parseDriftConfig(undefined);

  async function cosigned(p: unknown, claim: CallerSignatureClaim) {
    const pre = await runPrechecks({ event: 'tools/call', phase: 'request', payload: p, meta: { 'io.vouch/caller-signature': claim } }, { tenant: 'acme', principal: 'app', log, drift, callerKeys: async () => callerKeys });
    const d = await decide({ event: 'tools/call', phase: 'request', payload: p, context: { time: T, tenant: 'acme', principal: 'app' }, extra: pre.extra, guards: pre.guards }, { policy: EMPTY_POLICY, log });
    const receipt: Receipt = pre.callerSignature ? { ...d.receipt, callerSignature: pre.callerSignature } : d.receipt;
    return { d, receipt, entry: JSON.parse(utf8.decode(d.appended.bytes)) };
  }
  const check = (r: unknown, ks = callerKeys) => verifyReceipt(r, { verifiers: keys.verifiers, verifyCaller: callerVerifier(ks) });
  const failed = (r: unknown, ks = callerKeys) => check(r, ks).checks.filter((c) => !c.ok).map((c) => c.name);

  it('valid: allowed, the entry records the key and digests, the receipt verifies both signatures', async () => {
    const { d, receipt, entry } = await cosigned(payload, await sign(mldsa, 'app-mldsa', payload));
    expect(d.effect).toBe('allow');
    expect(entry.callerKey).toBe('app-mldsa');
    expect(entry.callerSignature).toEqual({ alg: 'ML-DSA-65', keyId: 'app-mldsa', digest: digestBytes(fromBase64(receipt.callerSignature!.signature)), payload: entry.input.digest });
    expect(entry.state[GUARD_STATE_KEY].callerSignature).toEqual({ ok: true, keyId: 'app-mldsa' });
    const report = check(receipt);
    expect(report.checks.find((c) => c.name === 'caller-signature')).toMatchObject({ ok: true });
    expect(report.ok).toBe(true);
  });

  for (const [name, claimOf, why] of [
    ['an invalid signature', async () => ({ ...(await sign(ed, 'app-ed', payload)), signature: toBase64(new Uint8Array(64)) }), /does not verify/],
    ['an unknown key', () => sign(stranger, 'stranger', payload), /unknown caller key/],
    ['a signature replayed onto another payload', () => sign(ed, 'app-ed', other), /does not verify over this payload/],
  ] as const) {
    it(`${name}: a recorded deny, and no co-signature in the receipt`, async () => {
      const { d, receipt, entry } = await cosigned(payload, await claimOf());
      expect(d.effect).toBe('deny');
      expect(d.chain.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: expect.stringMatching(why) });
      expect(entry.callerKey).toBeUndefined();
      expect(entry.callerSignature.payload).toBe(entry.input.digest);
      expect(entry.state[GUARD_STATE_KEY].callerSignature.deny).toMatch(why);
      expect(receipt.callerSignature).toBeUndefined();
      expect(check(receipt).ok).toBe(true); // vouch's receipt of the deny is itself valid
    });
  }

  it('offline, the co-signature must match the entry: payload, signature, key and the recorded digest', async () => {
    const a = await cosigned(payload, await sign(mldsa, 'app-mldsa', payload));
    const b = await cosigned(other, await sign(mldsa, 'app-mldsa', other));
    // B's validly signed payload carried on A's receipt: not A's input.
    expect(failed({ ...a.receipt, callerSignature: b.receipt.callerSignature })).toEqual(['caller-signature']);
    // A fresh valid signature over A's payload (ML-DSA is hedged: new bytes): not the one A's entry recorded.
    const resigned = await sign(mldsa, 'app-mldsa', payload);
    expect(resigned.signature).not.toBe(a.receipt.callerSignature!.signature);
    expect(failed({ ...a.receipt, callerSignature: { ...a.receipt.callerSignature!, signature: resigned.signature } })).toEqual(['caller-signature']);
    // Another payload's bytes under A's signature.
    expect(failed({ ...a.receipt, callerSignature: { ...a.receipt.callerSignature!, payload: b.receipt.callerSignature!.payload } })).toEqual(['caller-signature']);
    // The caller's key not trusted by the verifier.
    expect(failed(a.receipt, [callerKeys[1]])).toEqual(['caller-signature']);
    // A co-signed receipt checked without caller keys says so.
    expect(verifyReceipt(a.receipt, { verifiers: keys.verifiers }).checks.find((c) => c.name === 'caller-signature')).toMatchObject({ ok: false, detail: expect.stringMatching(/no caller key/) });
  });
});
