// Drift between intent and execution: JSON Pointer paths at any depth, with their classification.
import { describe, expect, it } from 'vitest';
import { computeDrift, DEFAULT_DRIFT_RULES, MAX_DRIFT_ITEMS, matchesPattern, parseDriftConfig, type DriftRules } from '../../src/execution/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';

const paths = (intent: unknown, executed: unknown, rules?: DriftRules) => computeDrift(intent, executed, rules).items.map((i) => [i.path, i.op]);

describe('computeDrift: which paths differ', () => {
  it('identical intent and execution: no drift', () => {
    const v = { name: 'send_email', arguments: { to: ['a@x.test'], body: 'hi', meta: { n: 1, ok: true, z: null } } };
    const d = computeDrift(v, structuredClone(v));
    expect(d).toEqual({ severity: 'none', count: 0, counts: { none: 0, benign: 0, suspicious: 0, critical: 0 }, items: [] });
  });

  it('a nested object change is one replace at its full path', () => {
    expect(paths({ a: { b: { c: 1, d: 2 } } }, { a: { b: { c: 3, d: 2 } } })).toEqual([['/a/b/c', 'replace']]);
  });

  it('an array element change is named by its index', () => {
    expect(paths({ xs: [1, { v: 'a' }, 3] }, { xs: [1, { v: 'b' }, 3] })).toEqual([['/xs/1/v', 'replace']]);
  });

  it('arrays compare index by index: a reorder shows at the indices that moved', () => {
    expect(paths({ xs: ['a', 'b', 'c'] }, { xs: ['c', 'b', 'a'] })).toEqual([['/xs/0', 'replace'], ['/xs/2', 'replace']]);
  });

  it('a longer or shorter array adds or removes at the tail indices', () => {
    expect(paths([1], [1, 2, 3])).toEqual([['/1', 'add'], ['/2', 'add']]);
    expect(paths([1, 2, 3], [1])).toEqual([['/1', 'remove'], ['/2', 'remove']]);
  });

  it('a type change is one replace at that path, not a walk inside', () => {
    expect(paths({ x: { a: 1, b: 2 } }, { x: [1, 2] })).toEqual([['/x', 'replace']]);
    expect(paths({ x: '1' }, { x: 1 })).toEqual([['/x', 'replace']]);
    expect(paths({ x: null }, { x: {} })).toEqual([['/x', 'replace']]);
    expect(paths({}, [])).toEqual([['', 'replace']]); // the whole document
  });

  it('added and removed keys, at any depth, in document order', () => {
    expect(paths({ a: 1, b: { c: 1 } }, { b: { c: 1, d: 2 }, e: 3 })).toEqual([['/a', 'remove'], ['/b/d', 'add'], ['/e', 'add']]);
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(paths({ 'a/b': 1, 'm~n': 1 }, { 'a/b': 2, 'm~n': 2 })).toEqual([['/a~1b', 'replace'], ['/m~0n', 'replace']]);
  });

  it('handles deep values without recursion limits', () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 5000; i++) {
      a = { k: a };
      b = { k: b };
    }
    const d = computeDrift(a, b);
    expect(d.count).toBe(1);
    expect(d.items[0].path).toBe('/k'.repeat(5000));
  });

  it(`records at most ${MAX_DRIFT_ITEMS} items but counts every difference`, () => {
    const n = MAX_DRIFT_ITEMS + 500;
    const d = computeDrift(Array.from({ length: n }, () => 0), Array.from({ length: n }, () => 1));
    expect(d.count).toBe(n);
    expect(d.items).toHaveLength(MAX_DRIFT_ITEMS);
    expect(d.truncated).toBe(true);
  });
});

describe('classification', () => {
  const sev = (intent: unknown, executed: unknown, rules?: DriftRules) => computeDrift(intent, executed, rules).items.map((i) => [i.path, i.severity]);

  it('default rules: recipients, amounts, targets, paths and commands are critical', () => {
    const intent = { arguments: { to: 'a@x', amount: 5, url: 'https://a', path: '/tmp/a', command: 'ls', note: 'x' } };
    const executed = { arguments: { to: 'evil@x', amount: 500, url: 'https://evil', path: '/etc/passwd', command: 'rm -rf /', note: 'y' } };
    expect(sev(intent, executed)).toEqual([
      ['/arguments/amount', 'critical'],
      ['/arguments/command', 'critical'],
      ['/arguments/note', 'suspicious'],
      ['/arguments/path', 'critical'],
      ['/arguments/to', 'critical'],
      ['/arguments/url', 'critical'],
    ]);
    expect(computeDrift(intent, executed).severity).toBe('critical');
    expect(computeDrift(intent, executed).counts).toEqual({ none: 0, benign: 0, suspicious: 1, critical: 5 });
  });

  it('default rules: ids, request ids, timestamps, trace ids and nonces are benign', () => {
    const d = computeDrift({ requestId: 'a', timestamp: 1, meta: { traceId: 't', nonce: 'n', id: 1 } }, { requestId: 'b', timestamp: 2, meta: { traceId: 'u', nonce: 'm', id: 2 } });
    expect(d.items.every((i) => i.severity === 'benign')).toBe(true);
    expect(d.severity).toBe('benign');
  });

  it('a rule covers the subtree under what it matches; critical defaults win over benign ones inside them', () => {
    expect(sev({ to: [{ id: 1, email: 'a' }] }, { to: [{ id: 2, email: 'a' }] })).toEqual([['/to/0/id', 'critical']]);
    expect(sev({ payment: { amount: { value: 1, currency: 'EUR' } } }, { payment: { amount: { value: 1, currency: 'USD' } } })).toEqual([['/payment/amount/currency', 'critical']]);
  });

  it('configured rules come first (first match wins), then the defaults, then the default severity', () => {
    const rules = parseDriftConfig({
      default: 'benign',
      rules: [
        { pattern: '/arguments/to', severity: 'suspicious' },
        { pattern: '**/amount', severity: 'none' },
        { pattern: '/arguments/*/secret', severity: 'critical' },
        { pattern: '/arguments/x', severity: 'critical' },
      ],
    });
    const intent = { arguments: { to: 'a', amount: 1, a: { secret: 1 }, x: 1, url: 'u', other: 1 } };
    const executed = { arguments: { to: 'b', amount: 2, a: { secret: 2 }, x: 2, url: 'v', other: 2 } };
    expect(Object.fromEntries(sev(intent, executed, rules))).toEqual({
      '/arguments/to': 'suspicious',
      '/arguments/amount': 'none',
      '/arguments/a/secret': 'critical',
      '/arguments/x': 'critical',
      '/arguments/url': 'critical',
      '/arguments/other': 'benign',
    });
  });

  it('pattern syntax: * is one segment, ** any depth, a bare name matches that key anywhere', () => {
    expect(matchesPattern('/a/*/c', ['a', 'b', 'c'])).toBe(true);
    expect(matchesPattern('/a/*/c', ['a', 'b', 'x', 'c'])).toBe(false);
    expect(matchesPattern('/a/**/c', ['a', 'b', 'x', 'c'])).toBe(true);
    expect(matchesPattern('/a/**/c', ['a', 'c'])).toBe(true);
    expect(matchesPattern('amount', ['deep', 'down', 'amount'])).toBe(true);
    expect(matchesPattern('**/amount', ['amount'])).toBe(true);
    expect(matchesPattern('amount', ['amounts'])).toBe(false);
    expect(matchesPattern('/a', ['b', 'a'])).toBe(false); // anchored
    expect(matchesPattern('/a~1b/c', ['a/b', 'c'])).toBe(true); // RFC 6901 escapes in patterns
    expect(matchesPattern('/a', ['a', 'deeper'])).toBe(true); // the subtree
  });
});

describe('parseDriftConfig', () => {
  it('defaults when absent', () => {
    expect(parseDriftConfig(undefined)).toEqual(DEFAULT_DRIFT_RULES);
  });

  it("reads the example config's drift section", async () => {
    const resolved = await loadConfigFile(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url).pathname);
    const rules = parseDriftConfig(resolved.config.drift);
    expect(rules.default).toBe('suspicious');
    expect(rules.rules).toEqual([
      { pattern: '/arguments/path', severity: 'critical' },
      { pattern: '/_meta', severity: 'benign' },
    ]);
    expect(computeDrift({ _meta: { progressToken: 1 } }, { _meta: { progressToken: 2 } }, rules).severity).toBe('benign');
  });

  it('lists every bad field with its path', () => {
    let err: unknown;
    try {
      parseDriftConfig({ default: 'fatal', failOnCritical: 'yes', extra: 1, rules: [{ pattern: '', severity: 'critical' }, { pattern: '/a', severity: 'loud' }, 'x', { pattern: '/a~2', severity: 'none' }] });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ERR_CONFIG' });
    expect((err as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(
      ['/drift/default', '/drift/extra', '/drift/failOnCritical', '/drift/rules/0/pattern', '/drift/rules/1/severity', '/drift/rules/2', '/drift/rules/3/pattern'].sort(),
    );
    expect(() => parseDriftConfig([])).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });
});
