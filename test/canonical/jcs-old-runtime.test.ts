// canonicalText on a runtime without String.prototype.isWellFormed (ES2024; the audit console in an
// older browser): the module falls back to the lone-surrogate pattern and refuses the same strings.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const original = Object.getOwnPropertyDescriptor(String.prototype, 'isWellFormed');

describe('canonicalText without isWellFormed', () => {
  let canonicalText: (v: unknown) => string;
  beforeAll(async () => {
    delete (String.prototype as { isWellFormed?: unknown }).isWellFormed;
    vi.resetModules();
    ({ canonicalText } = await import('../../src/canonical/jcs.js'));
  });
  afterAll(() => {
    if (original) Object.defineProperty(String.prototype, 'isWellFormed', original);
  });

  it('writes the same text and refuses lone surrogates in values and keys', () => {
    expect(typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed).toBe('undefined');
    expect(canonicalText({ b: '\uD83D\uDE00', a: ['é', 1] })).toBe('{"a":["é",1],"b":"\uD83D\uDE00"}');
    for (const bad of [{ a: '\uD800' }, { a: 'x\uDC00' }, { ['\uDBFF']: 1 }, ['\uDE00\uD83D']]) {
      expect(() => canonicalText(bad)).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
    }
  });
});
