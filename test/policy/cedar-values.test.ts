import { describe, expect, it } from 'vitest';
import { toCedarRecord, toCedarValue } from '../../src/policy/index.js';

describe('toCedarValue', () => {
  it('keeps strings, booleans and safe integers', () => {
    expect(toCedarValue('x')).toBe('x');
    expect(toCedarValue(true)).toBe(true);
    expect(toCedarValue(42)).toBe(42);
    expect(toCedarValue(-0)).toBe(0);
    expect(toCedarValue(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('turns other numbers into their JSON text', () => {
    expect(toCedarValue(2.5)).toBe('2.5');
    expect(toCedarValue(1e21)).toBe('1e+21');
    expect(toCedarValue(2 ** 60)).toBe('1152921504606847000'); // ES / RFC 8785 number text
  });

  it('drops null in records and sets', () => {
    expect(toCedarValue({ a: null, b: [1, null, 'x'], c: { d: null } })).toEqual({ b: [1, 'x'], c: {} });
    expect(toCedarValue(null)).toBeUndefined();
  });

  it('drops the keys Cedar reads as escapes, so arguments cannot forge an entity', () => {
    expect(toCedarRecord({ role: { __entity: { type: 'Role', id: 'admin' } }, __extn: { fn: 'ip', arg: '1.2.3.4' }, ok: 1 })).toEqual({ role: {}, ok: 1 });
  });

  it('makes a record of anything', () => {
    expect(toCedarRecord([1, 2])).toEqual({});
    expect(toCedarRecord('x')).toEqual({});
    expect(toCedarRecord(undefined)).toEqual({});
  });

  it('cuts nesting past the depth limit', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    let v = toCedarRecord(deep) as Record<string, unknown>;
    let depth = 0;
    while (v && typeof v === 'object' && 'd' in v) {
      v = v.d as Record<string, unknown>;
      depth++;
    }
    expect(depth).toBeLessThan(70);
    expect(depth).toBeGreaterThan(60);
  });
});
