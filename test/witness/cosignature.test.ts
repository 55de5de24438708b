// tlog-cosignature formats, checked against the spec's own definitions rebuilt independently
// here (node:crypto SHA-256, @noble signatures): key ids, the two signed messages, the
// timestamped_signature layout and the vkeys with type bytes 0x04 and 0x06.
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { fromBase64, toHex } from '../../src/canonical/index.js';
import { createCosigner, ed25519CosignedMessage, formatCosignerVkey, mldsa44CosignedMessage, parseCosignerVkey, verifyCosignature, verifyWitnesses } from '../../src/witness/index.js';

const TEXT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const seed = (b: number) => new Uint8Array(32).fill(b);
const sha = (...parts: (string | Uint8Array)[]) => createHash('sha256').update(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))))).digest();

describe('tlog-cosignature', () => {
  it('Ed25519 (0x04): the signed message is the spec example, the key id SHA-256(name\\n 0x04 key)[:4]', () => {
    expect(new TextDecoder().decode(ed25519CosignedMessage(TEXT, 1679315147))).toBe(`cosignature/v1\ntime 1679315147\n${TEXT}`);
    const c = createCosigner('witness.example.com/w1', 'Ed25519', seed(1));
    expect(toHex(c.keyId)).toBe(toHex(sha('witness.example.com/w1\n', Uint8Array.of(4), c.publicKey).subarray(0, 4)));
    const line = c.cosign(TEXT, 1679315147);
    expect(line).toMatch(/^\u2014 witness\.example\.com\/w1 [A-Za-z0-9+/=]+\n$/);
    const blob = fromBase64(line.trim().split(' ')[2]);
    expect(blob.length).toBe(4 + 8 + 64); // key id, u64 timestamp, signature
    expect(Buffer.from(blob.subarray(4, 12)).readBigUInt64BE()).toBe(1679315147n);
    expect(ed25519.verify(blob.subarray(12), Buffer.from(`cosignature/v1\ntime 1679315147\n${TEXT}`), c.publicKey)).toBe(true);
    expect(verifyCosignature(c, TEXT, blob.subarray(4))).toBe(1679315147);
    // Another time, another text: not this cosignature.
    const moved = blob.slice(4);
    moved[7] ^= 1;
    expect(verifyCosignature(c, TEXT, moved)).toBeUndefined();
    expect(verifyCosignature(c, TEXT.replace('20852163', '20852162'), blob.subarray(4))).toBeUndefined();
  });

  it('ML-DSA-44 (0x06): cosigned_message struct, name committed, 2420-byte signature', () => {
    const name = 'witness.example.com/w1';
    const msg = mldsa44CosignedMessage(name, 1679315147, TEXT);
    const u64 = (n: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(n); return b; };
    const origin = 'example.com/behind-the-sofa';
    const want = Buffer.concat([
      Buffer.from('subtree/v1\n\0'), Buffer.from([name.length]), Buffer.from(name), u64(1679315147n),
      Buffer.from([origin.length]), Buffer.from(origin), u64(0n), u64(20852163n), Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64'),
    ]);
    expect(Buffer.from(msg).equals(want)).toBe(true);
    const c = createCosigner(name, 'ML-DSA-44', seed(2));
    expect(c.publicKey.length).toBe(1312);
    expect(toHex(c.keyId)).toBe(toHex(sha(`${name}\n`, Uint8Array.of(6), c.publicKey).subarray(0, 4)));
    const blob = fromBase64(c.cosign(TEXT, 1679315147).trim().split(' ')[2]);
    expect(blob.length).toBe(4 + 8 + 2420);
    expect(ml_dsa44.verify(blob.subarray(12), want, c.publicKey)).toBe(true);
    // Same key, other name: the message commits to the name, so it does not verify.
    const other = { ...c, name: 'witness.example.com/w2' };
    expect(verifyCosignature(other, TEXT, blob.subarray(4))).toBeUndefined();
  });

  it('vkeys carry type 0x04 / 0x06 and round-trip; a wrong key id is refused', () => {
    for (const [alg, t] of [['Ed25519', 4], ['ML-DSA-44', 6]] as const) {
      const c = createCosigner('w.example/x', alg, seed(3));
      const v = formatCosignerVkey(c);
      expect(fromBase64(v.split('+').slice(2).join('+'))[0]).toBe(t);
      expect(toHex(parseCosignerVkey(v).keyId)).toBe(toHex(c.keyId));
      expect(() => parseCosignerVkey(v.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toThrow(/key id/);
    }
  });

  it('counts distinct witnesses, reports the latest time, and rejects a failing known line', () => {
    const a = [createCosigner('a.example/w', 'Ed25519', seed(4)), createCosigner('a.example/w', 'ML-DSA-44', seed(5))];
    const b = createCosigner('b.example/w', 'Ed25519', seed(6));
    const note = `${TEXT}\n\u2014 example.com/behind-the-sofa AAAAAAAA\n`;
    const signed = note + a[0].cosign(TEXT, 100) + a[1].cosign(TEXT, 200) + b.cosign(TEXT, 150);
    const v = verifyWitnesses(signed, [...a, b], 2);
    expect(v).toMatchObject({ ok: true, witnesses: ['a.example/w', 'b.example/w'], latest: new Date(200_000).toISOString() });
    expect(verifyWitnesses(signed, [...a, b], 3).ok).toBe(false);
    expect(verifyWitnesses(signed, a, 2).ok).toBe(false); // b unknown: ignored, one witness
    const broken = signed.replace(b.cosign(TEXT, 150), b.cosign(TEXT, 150).replace(/.{6}\n$/, 'AAAAA=\n'));
    expect(verifyWitnesses(broken, [...a, b], 1)).toMatchObject({ ok: false, problem: expect.stringMatching(/does not verify/) });
  });
});
