// Errors across the log object's RPC boundary: the runtime keeps only name and message, so the
// object sends coded errors as values and the Worker rethrows them with class, code and issues.
import { describe, expect, it } from 'vitest';
import { AccessError, ConfigError, InputError, StoreError, VerificationError } from '../../src/errors.js';
import { toResult, unwrapResult } from '../../src/worker/rpc-result.js';

/** What crossing the boundary does to a value: structured clone. */
const across = <T>(v: T): T => structuredClone(v);

describe('rpc results', () => {
  it('values pass through, bytes included', async () => {
    const r = across(await toResult(async () => ({ seq: 3, bytes: new Uint8Array([1, 2]) })));
    expect(unwrapResult(r)).toEqual({ seq: 3, bytes: new Uint8Array([1, 2]) });
  });

  it.each([
    ['StoreError', () => new StoreError('ERR_STORE_INCONSISTENT', 'refusing to sign'), StoreError],
    ['VerificationError', () => new VerificationError('ERR_VERIFY_PROOF', 'bad proof'), VerificationError],
    ['AccessError', () => new AccessError('ERR_FORBIDDEN', 'no'), AccessError],
  ] as const)('a %s comes back as itself, with its code', async (_name, make, cls) => {
    const e = make();
    const r = across(await toResult(() => Promise.reject(e)));
    let thrown: unknown;
    try {
      unwrapResult(r);
    } catch (x) {
      thrown = x;
    }
    expect(thrown).toBeInstanceOf(cls);
    expect(thrown).toMatchObject({ code: e.code, message: e.message, name: e.name });
  });

  it('input and config errors keep every issue', async () => {
    for (const e of [new InputError('ERR_INPUT', 'bad', [{ path: '/seq', message: 'reserved' }]), new ConfigError('ERR_CONFIG', 'bad', [{ path: '/a', message: 'x' }, { path: '/b', message: 'y' }])]) {
      const r = across(await toResult(() => Promise.reject(e)));
      expect(() => unwrapResult(r)).toThrow(expect.objectContaining({ code: e.code, issues: e.issues }));
    }
  });

  it('anything else stays internal: a plain Error, no code, no stack across', async () => {
    const r = across(await toResult(() => Promise.reject(new TypeError('x is undefined'))));
    expect(r).toEqual({ ok: false, error: { name: 'Error', code: 'ERR_INTERNAL', message: 'x is undefined' } });
    expect(() => unwrapResult(r)).toThrow(expect.not.objectContaining({ code: expect.anything() }));
  });
});
