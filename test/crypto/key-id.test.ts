// Signed-note key ids: the C2SP example key, and vouch's 0xff-prefixed ML-DSA-65 type bytes
// checked against an independent SHA-256 (node:crypto).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64, toHex } from '../../src/canonical/index.js';
import { createMldsaSigner, MLDSA65_TYPE_BYTES, noteKeyId } from '../../src/crypto/index.js';

describe('noteKeyId', () => {
  it('matches the C2SP example vkey (Ed25519, 530d903a)', () => {
    const key = fromBase64('AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k');
    expect(key[0]).toBe(0x01);
    expect(toHex(noteKeyId('example.com/foo', 'Ed25519', key.subarray(1)))).toBe('530d903a');
  });

  it('uses 0xff || "io.vouch/ML-DSA-65" as the ML-DSA-65 type bytes', () => {
    expect(MLDSA65_TYPE_BYTES[0]).toBe(0xff);
    expect(new TextDecoder().decode(MLDSA65_TYPE_BYTES.subarray(1))).toBe('io.vouch/ML-DSA-65');
    const pk = createMldsaSigner(new Uint8Array(32)).publicKey;
    const want = createHash('sha256').update('log.example/vouch\n').update(MLDSA65_TYPE_BYTES).update(pk).digest().subarray(0, 4);
    expect(noteKeyId('log.example/vouch', 'ML-DSA-65', pk)).toEqual(new Uint8Array(want));
    // Same name and key, other algorithm: another id (type bytes separate the domains).
    expect(noteKeyId('log.example/vouch', 'Ed25519', pk)).not.toEqual(new Uint8Array(want));
  });
});
