// decisionRecord copies the chain's results in one pass instead of a JSON text round trip. The
// record is signed into every entry and compared by replay, so it must be exactly what the round
// trip gave: this holds it to that reference over seeded chain results whose infos, messages and
// metrics hold what JSON drops or changes (undefined members and elements, NaN, Infinity, Dates,
// "__proto__" keys, nulls, deep nesting), and over the shared-payload digests.
import { describe, expect, it } from 'vitest';
import { canonicalText, digestJson } from '../../src/canonical/index.js';
import { decisionRecord } from '../../src/decide/index.js';
import type { ChainResult, InterceptorResult } from '../../src/interceptors/types.js';
import { rng } from '../helpers/rng.js';

/** The previous decisionRecord, verbatim in behaviour: strip timings, digest payloads, JSON round trip. */
function reference(chain: ChainResult) {
  const { totalDurationMs: _t, ...r } = chain;
  const results = r.results.map((x) => {
    const { durationMs: _d, ...kept } = x as InterceptorResult & { durationMs?: number };
    return kept.type === 'mutation' ? { ...kept, payload: undefined, payloadDigest: digestJson(kept.payload) } : kept;
  });
  const rec: Record<string, unknown> = { effect: r.status === 'success' ? 'allow' : 'deny', status: r.status, summary: r.validationSummary, results: JSON.parse(JSON.stringify(results)) };
  if (r.abortedAt) rec.abortedAt = r.abortedAt;
  return rec;
}

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (k < 0.06) return [undefined, NaN, Infinity, new Date(0), null][Math.floor(r() * 5)];
  if (depth <= 0 || k < 0.5) return [0, -0, 1.5, 'x', '', true, false, null, 'é\u2028'][Math.floor(r() * 9)];
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(r() * 4); i++) {
    const key = r() < 0.04 ? '__proto__' : ['a', 'b', 'count', '10', 'tool'][Math.floor(r() * 5)];
    if (key === '__proto__') Object.defineProperty(o, key, { value: value(r, depth - 1), enumerable: true, writable: true, configurable: true });
    else o[key] = value(r, depth - 1);
  }
  return o;
}

function chainOf(r: () => number): ChainResult {
  const payloads = [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }];
  const results: InterceptorResult[] = [];
  for (let i = 0; i < 1 + Math.floor(r() * 5); i++) {
    const base = { interceptor: `i${i}`, phase: 'request' as const, ...(r() < 0.7 && { durationMs: r() * 3 }), ...(r() < 0.5 && { info: value(r, 3) as Record<string, unknown> }) };
    const t = Math.floor(r() * 3);
    if (t === 0) results.push({ ...base, type: 'mutation', modified: r() < 0.5, payload: payloads[Math.floor(r() * 2)] });
    else if (t === 1) results.push({ ...base, type: 'validation', valid: r() < 0.5, ...(r() < 0.5 && { severity: 'error' as const, messages: [{ message: 'm', severity: 'error' as const, ...(r() < 0.5 && { path: undefined as unknown as string }) }] }) });
    else results.push({ ...base, type: 'observability', observed: true, ...(r() < 0.5 && { metrics: { n: r() < 0.1 ? NaN : 3 } }) });
  }
  const status = (['success', 'validation_failed', 'error'] as const)[Math.floor(r() * 3)];
  return {
    status,
    event: 'tools/call',
    phase: 'request',
    results,
    finalPayload: payloads[0],
    validationSummary: { errors: 1, warnings: 0, infos: 0 },
    ...(r() < 0.5 && { totalDurationMs: 4 }),
    ...(status !== 'success' && { abortedAt: { interceptor: 'i0', reason: 'no', type: 'validation' as const } }),
  };
}

describe('decisionRecord', () => {
  it('equals the JSON round trip it replaced, value for value, over 5,000 seeded chain results', () => {
    const r = rng(17);
    let odd = 0;
    for (let i = 0; i < 5_000; i++) {
      const chain = chainOf(r);
      const want = reference(chain);
      const got = decisionRecord(chain);
      expect(got).toStrictEqual(want);
      expect(JSON.stringify(got)).toBe(JSON.stringify(want)); // key order too
      if (/null|__proto__/.test(JSON.stringify(want))) odd++;
    }
    expect(odd).toBeGreaterThan(500); // the cases JSON changes are exercised
  });

  it('a "__proto__" key in an info stays an own member, as JSON.parse makes it', () => {
    const info = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
    const chain: ChainResult = { status: 'success', event: 'tools/call', phase: 'request', results: [{ interceptor: 'v', phase: 'request', type: 'validation', valid: true, info }], finalPayload: {}, validationSummary: { errors: 0, warnings: 0, infos: 0 } };
    const rec = decisionRecord(chain) as { results: { info: Record<string, unknown> }[] };
    expect(Object.getPrototypeOf(rec.results[0].info)).toBe(Object.prototype);
    expect(Object.keys(rec.results[0].info)).toEqual(['__proto__', 'a']);
    expect(canonicalText(rec)).toBe(canonicalText(reference(chain)));
  });

  it('the record is a copy: changing the chain after does not change it', () => {
    const info = { reasons: ['p1'] };
    const chain: ChainResult = { status: 'success', event: 'tools/call', phase: 'request', results: [{ interceptor: 'v', phase: 'request', type: 'validation', valid: true, info }], finalPayload: {}, validationSummary: { errors: 0, warnings: 0, infos: 0 } };
    const rec = decisionRecord(chain);
    const before = canonicalText(rec);
    info.reasons.push('p2');
    chain.validationSummary.errors = 9;
    expect(canonicalText(rec)).toBe(before);
  });
});
