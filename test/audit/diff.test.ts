import { describe, expect, it } from 'vitest';
import { diffJson, escapePointer } from '../../src/audit/index.js';

describe('diffJson', () => {
  it('is empty for equal values, whatever the key order', () => {
    expect(diffJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual([]);
  });

  it('names each differing leaf with an RFC 6901 pointer', () => {
    const a = { effect: 'allow', results: [{ valid: true, info: { n: 1 } }, { valid: true }], 'a/b': 1, 'm~n': 1 };
    const b = { effect: 'deny', results: [{ valid: false, info: { n: 1 } }, { valid: true }], 'a/b': 2, 'm~n': 2 };
    expect(diffJson(a, b, '/decision')).toEqual(['/decision/a~1b', '/decision/effect', '/decision/m~0n', '/decision/results/0/valid']);
  });

  it('reports added, removed and retyped members at their own path', () => {
    expect(diffJson({ x: 1, arr: [1, 2] }, { y: 1, arr: [1] })).toEqual(['/arr/1', '/x', '/y']);
    expect(diffJson({ x: [1] }, { x: { 0: 1 } })).toEqual(['/x']);
    expect(diffJson(1, '1')).toEqual(['']);
  });

  it('stops at the limit', () => {
    const a = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(diffJson(a, {}, '', 5)).toHaveLength(5);
  });

  it('escapes ~ before /', () => {
    expect(escapePointer('~/')).toBe('~0~1');
  });
});
