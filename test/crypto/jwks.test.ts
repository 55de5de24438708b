// JWKS: RFC 9964 AKP keys for ML-DSA-65, OKP for Ed25519; strict parsing of published key sets.
import { describe, expect, it } from 'vitest';
import {
  createEd25519Signer, createMldsaSigner, fromBase64Url, parseJwks, toBase64Url, toJwk, toJwks,
} from '../../src/crypto/index.js';

const ml = createMldsaSigner(new Uint8Array(32).fill(3)).publicKey;
const ed = createEd25519Signer(new Uint8Array(32).fill(4)).publicKey;

describe('JWKS', () => {
  it('writes AKP and OKP keys and reads them back', () => {
    const jwks = toJwks([
      { alg: 'ML-DSA-65', publicKey: ml, kid: 'log-2025' },
      { alg: 'Ed25519', publicKey: ed, kid: 'ed-1' },
    ]);
    expect(jwks.keys[0]).toMatchObject({ kty: 'AKP', alg: 'ML-DSA-65', kid: 'log-2025', use: 'sig' });
    expect(jwks.keys[1]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'ed-1' });
    expect(JSON.stringify(jwks)).not.toMatch(/[=+/]"/);
    expect(parseJwks(JSON.parse(JSON.stringify(jwks)))).toEqual([
      { alg: 'ML-DSA-65', publicKey: ml, kid: 'log-2025' },
      { alg: 'Ed25519', publicKey: ed, kid: 'ed-1' },
    ]);
  });

  it('base64url is unpadded, URL-safe and strict', () => {
    const b = new Uint8Array([0xfb, 0xff, 0xfe, 0x01]);
    expect(toBase64Url(b)).toBe('-__-AQ');
    expect(fromBase64Url('-__-AQ')).toEqual(b);
    expect(() => fromBase64Url('-__-AQ==')).toThrow();
    expect(() => fromBase64Url('+//+AQ')).toThrow();
  });

  it('skips key types it does not use', () => {
    expect(parseJwks({ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB' }, toJwk('Ed25519', ed, 'k')] })).toHaveLength(1);
  });

  it('rejects a bad shape with every bad field listed', () => {
    expect(() => parseJwks(null)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    expect(() => parseJwks({ keys: {} })).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    const bad = {
      keys: [
        { ...toJwk('ML-DSA-65', ml, 'a'), pub: toBase64Url(ml.subarray(1)) },
        { ...toJwk('Ed25519', ed, ''), use: 'enc' },
        { ...toJwk('ML-DSA-65', ml, 'c'), priv: 'AAAA' },
        7,
      ],
    };
    try {
      parseJwks(bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_INPUT' });
      expect((e as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual([
        '/keys/0/pub', '/keys/1/kid', '/keys/1/use', '/keys/2/priv', '/keys/3',
      ]);
    }
  });
});
