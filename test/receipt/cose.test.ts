// COSE receipts (RFC 9942) from a real log, played against by a forger who holds a receipt and
// wants it to say something else: every single-byte change, each header field, another entry's
// bytes, a stranger's key, a key outside its window, an attached payload. And the service side:
// the log key refuses to put in a COSE receipt a root it never signed in a checkpoint.
import { decode, encode } from 'cborg';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEd25519Signer, createMldsaSigner, type SignatureAlg } from '../../src/crypto/index.js';
import { formatVkey, noteSignerFor, signCheckpoint, parseNote, parseCheckpoint } from '../../src/log/index.js';
import { buildCoseReceipt, coseSignatureCache, COSE_LABEL, ENTRY_LABEL, parseCoseReceipt, signCoseRoot, verifyCoseReceipt, type CoseSigner, type Trust } from '../../src/receipt/index.js';
import { parseTrust } from '../../src/receipt/index.js';
import type { CoseAlgName } from '../../src/receipt/cose-format.js';
import { keys, ORIGIN } from '../execution/_log.js';
import { logWithReceipts, memoized } from './_receipts.js';

const SEEDS = { 'ML-DSA-65': new Uint8Array(32).fill(7), Ed25519: new Uint8Array(32).fill(8) } as const;
const signerOf = (alg: CoseAlgName): CoseSigner => {
  const s = alg === 'ML-DSA-65' ? createMldsaSigner(SEEDS[alg]) : createEd25519Signer(SEEDS[alg]);
  return { alg, publicKey: s.publicKey, sign: (m) => s.sign(m) };
};
const KEY_NAMES = [ORIGIN, 'test.vouch'];
const trust: Trust = parseTrust(keys.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n'));
const memoTrust: Trust = { ...trust, vkeys: memoized(trust.vkeys) };

let l: Awaited<ReturnType<typeof logWithReceipts>>;
const receipts: Record<CoseAlgName, Uint8Array> = {} as never;
let other: Uint8Array;

async function coseOf(seq: number, size: number, alg: CoseAlgName = 'ML-DSA-65'): Promise<Uint8Array> {
  const bytes = (await l.log.entry(seq))!;
  return buildCoseReceipt({ entry: bytes, seq, proof: await l.log.inclusionProof(seq, size), checkpoint: (await l.log.checkpointAt(size))!.note, keyNames: KEY_NAMES }, signerOf(alg));
}

/** Rewrite a receipt's decoded parts and encode it again (the forger's tool). */
function rewrite(bytes: Uint8Array, f: (parts: unknown[], prot: Map<number, unknown>) => void, reProtect = true): Uint8Array {
  const parts = decode(bytes.subarray(1), { useMaps: true }) as unknown[];
  const prot = decode(parts[0] as Uint8Array, { useMaps: true }) as Map<number, unknown>;
  f(parts, prot);
  if (reProtect) parts[0] = encode(prot);
  return Uint8Array.of(0xd2, ...encode(parts));
}
const failed = (bytes: Uint8Array, opts: Partial<Parameters<typeof verifyCoseReceipt>[1]> = {}) =>
  verifyCoseReceipt(bytes, { trust: memoTrust, ...opts }).checks.filter((c) => !c.ok).map((c) => c.name);

beforeAll(async () => {
  l = await logWithReceipts(6);
  receipts['ML-DSA-65'] = await coseOf(1, 3);
  receipts.Ed25519 = await coseOf(1, 3, 'Ed25519');
  other = (await l.log.entry(2))!;
});

describe('COSE receipt: the format (RFC 9942, RFC9162_SHA256)', () => {
  it('protected: alg -49 / -8, kid, vds 1, CWT iss = origin; unprotected: vdp {-1: [<<[size, index, path]>>]}; payload nil', () => {
    for (const [alg, coseAlg] of [['ML-DSA-65', -49], ['Ed25519', -8]] as const) {
      const r = parseCoseReceipt(receipts[alg]);
      expect(r).toMatchObject({ alg: coseAlg, vds: 1, issuer: ORIGIN, treeSize: 3, leafIndex: 1 });
      expect(r.kid).toHaveLength(4);
      expect(r.path).toHaveLength(2);
      const parts = decode(receipts[alg].subarray(1), { useMaps: true }) as unknown[];
      expect(parts[2]).toBeNull();
      expect([...(decode(parts[0] as Uint8Array, { useMaps: true }) as Map<number, unknown>).keys()]).toEqual(expect.arrayContaining([1, 4, 15, 395, 'io.vouch/tree-size']));
    }
  });
});

describe('COSE receipt: verification', () => {
  it('ML-DSA-65 receipt: every check passes and the report names alg, kid, issuer, size, root', () => {
    const r = verifyCoseReceipt(receipts['ML-DSA-65'], { trust });
    expect(r.checks.map((c) => [c.name, c.ok])).toEqual([['format', true], ['vds', true], ['entry', true], ['index', true], ['origin', true], ['inclusion', true], ['signature', true], ['post-quantum', true]]);
    expect(r).toMatchObject({ ok: true, alg: 'ML-DSA-65', issuer: ORIGIN, treeSize: 3, classicalOnly: false });
  });

  it('Ed25519 receipt: classical alone fails post-quantum, passes with classicalOk (said so)', () => {
    expect(failed(receipts.Ed25519)).toEqual(['post-quantum']);
    const r = verifyCoseReceipt(receipts.Ed25519, { trust, classicalOk: true });
    expect(r).toMatchObject({ ok: true, alg: 'Ed25519', classicalOnly: true });
  });

  it('forger: every single-byte change of the receipt (outside the signature) is refused', () => {
    const bytes = receipts.Ed25519;
    const sigStart = bytes.length - 64;
    let tried = 0;
    for (let i = 0; i < sigStart; i++) {
      for (const mask of [0x01, 0x80]) {
        const t = Uint8Array.from(bytes);
        t[i] ^= mask;
        expect(verifyCoseReceipt(t, { trust: memoTrust, classicalOk: true }).ok, `byte ${i} ^ ${mask}`).toBe(false);
        tried++;
      }
    }
    for (const i of [sigStart, sigStart + 31, bytes.length - 1]) {
      const t = Uint8Array.from(bytes);
      t[i] ^= 1;
      expect(failed(t, { classicalOk: true })).toEqual(['signature']);
    }
    expect(tried).toBeGreaterThan(500);
  });

  it('forger: header fields and proof rewritten one at a time', async () => {
    const m = receipts['ML-DSA-65'];
    // Another issuer: the signature covers the protected header, and the entry names its log.
    expect(failed(rewrite(m, (_, p) => p.set(COSE_LABEL.cwtClaims, new Map([[1, 'test.vouch/other']]))))).toEqual(['origin', 'signature']);
    expect(failed(rewrite(m, (_, p) => p.set(COSE_LABEL.vds, 2)))).toEqual(['vds', 'signature']);
    expect(failed(rewrite(m, (_, p) => p.set(COSE_LABEL.alg, -8)))).toContain('signature');
    expect(failed(rewrite(m, (_, p) => p.set(16, 'application/cose')))).toEqual(['format']);
    expect(failed(rewrite(m, (_, p) => p.delete(COSE_LABEL.cwtClaims)))).toEqual(['format']);
    // The proof lies about size or index: the root differs (or the proof is malformed).
    const proofEdit = (f: (p: unknown[]) => void) => rewrite(m, (parts) => {
      const vdp = (parts[1] as Map<unknown, Map<number, Uint8Array[]>>).get(COSE_LABEL.vdp)!;
      const proof = decode(vdp.get(-1)![0], {}) as unknown[];
      f(proof);
      vdp.set(-1, [encode(proof)]);
    }, false);
    // tree_size 3 -> 4 keeps the root (RFC 9162 gives index 1 one path shape in both), so only
    // the signed size catches it: unchecked, a key-window check would read a size nobody signed.
    expect(failed(proofEdit((p) => (p[0] = 4)))).toEqual(['inclusion', 'signature']);
    expect(failed(proofEdit((p) => (p[0] = 2)))).toEqual(['inclusion', 'signature']);
    expect(failed(rewrite(m, (_, p) => p.set('io.vouch/tree-size' as never, 4)))).toEqual(['inclusion', 'signature']);
    expect(failed(proofEdit((p) => (p[1] = 2)))).toEqual(['index', 'inclusion', 'signature']);
    expect(failed(proofEdit((p) => (p[2] as Uint8Array[]).reverse()))).toEqual(['signature']);
    expect(failed(proofEdit((p) => (p[2] as Uint8Array[]).pop()))).toEqual(['inclusion', 'signature']);
    // Another entry's bytes under the same proof: its seq gives it away, and its leaf leads to a
    // root nobody signed (the proof computes a root; only the signature says whose it is).
    expect(failed(rewrite(m, (parts) => (parts[1] as Map<unknown, unknown>).set(ENTRY_LABEL, other), false))).toEqual(['index', 'signature']);
    // An attached payload (the root) is refused: the verifier must recompute it (RFC 9942 section 3).
    expect(failed(rewrite(m, (parts) => (parts[2] = new Uint8Array(32)), false))).toEqual(['format']);
    // No entry bytes at all, none given: nothing is proven.
    const bare = rewrite(m, (parts) => (parts[1] as Map<unknown, unknown>).delete(ENTRY_LABEL), false);
    expect(failed(bare)).toEqual(['entry', 'signature']);
    expect(verifyCoseReceipt(bare, { trust, entry: (await l.log.entry(1))! }).ok).toBe(true);
    expect(failed(bare, { entry: other })).toEqual(['index', 'signature']);
    expect(failed(m, { origin: 'test.vouch/other' })).toEqual(['origin']);
  });

  it('a stranger key, a key outside its window: refused by name', async () => {
    const stranger = parseTrust(formatVkey('test.vouch', 'ML-DSA-65', createMldsaSigner(new Uint8Array(32).fill(9)).publicKey));
    expect(verifyCoseReceipt(receipts['ML-DSA-65'], { trust: stranger }).checks.find((c) => c.name === 'signature')?.detail).toMatch(/no trusted ML-DSA-65 key has kid [0-9a-f]{8} for issuer test\.vouch\/acme/);
    const label = `${trust.vkeys[0].name}+${Buffer.from(trust.vkeys[0].keyId).toString('hex')}`;
    const revoked: Trust = { ...trust, windows: [{ label, origin: ORIGIN, window: { from: 0, revokedAfter: 2 } }] };
    expect(verifyCoseReceipt(receipts['ML-DSA-65'], { trust: revoked }).checks.find((c) => c.name === 'signature')?.detail).toMatch(/key-revoked/);
  });
});

describe('COSE receipt: the signing side refuses roots its key did not sign', () => {
  it('a caller asking again and again: one signature per checkpoint and key (the cache), a new one for a new checkpoint', async () => {
    let signed = 0;
    const base = signerOf('Ed25519');
    const counting: CoseSigner = { ...base, sign: (m) => (signed++, base.sign(m)) };
    const sign = coseSignatureCache();
    const cp3 = (await l.log.checkpointAt(3))!.note;
    const all = await Promise.all(Array.from({ length: 20 }, () => sign(cp3, KEY_NAMES, counting)));
    expect(signed).toBe(1);
    expect(new Set(all.map((a) => Buffer.from(a.signature).toString('hex'))).size).toBe(1);
    await sign((await l.log.checkpointAt(6))!.note, KEY_NAMES, counting);
    expect(signed).toBe(2);
    // A refusal is not cached as a signature: it is refused again, by name.
    await expect(sign(cp3, ['someone.else'], counting)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
    expect(signed).toBe(2);
  });

  it('a checkpoint signed by another key (or altered) gets no COSE signature: ERR_SIGN_FAILED', async () => {
    const cp = (await l.log.checkpointAt(3))!.note;
    const forged = await signCheckpoint(parseCheckpoint(parseNote(cp).text), [noteSignerFor('test.vouch', createMldsaSigner(new Uint8Array(32).fill(9)))]);
    await expect(signCoseRoot(forged, KEY_NAMES, signerOf('ML-DSA-65'))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
    const altered = cp.replace(/\n[A-Za-z0-9+/=]{44}\n/, `\n${Buffer.alloc(32, 1).toString('base64')}\n`);
    await expect(signCoseRoot(altered, KEY_NAMES, signerOf('ML-DSA-65'))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
    await expect(signCoseRoot(cp, ['someone.else'], signerOf('Ed25519'))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });
});
