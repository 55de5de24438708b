// determinersOf reads decision records from entries (untrusted until verified): it never throws,
// never guesses, and names evaluation errors apart from Cedar's default deny.
import { describe, expect, it } from 'vitest';
import { determinersOf, formatDeterminer } from '../../src/audit/what-if-explain.js';
import type { Json } from '../../src/interceptors/types.js';

describe('determinersOf', () => {
  it('a Cedar deny caused by an evaluation error says so, not "default deny"', () => {
    const rec = {
      effect: 'deny', status: 'validation_failed',
      results: [{ interceptor: 'authz', type: 'validation', phase: 'request', valid: false, info: { reasons: [], errors: ['p1: attribute `x` not found'] } }],
      abortedAt: { interceptor: 'authz', reason: 'denied by policy (evaluation error)', type: 'validation' },
    };
    const [d] = determinersOf(rec);
    expect(d).toEqual({ interceptor: 'authz', policies: [], errors: ['p1: attribute `x` not found'], message: 'denied by policy (evaluation error)' });
    expect(formatDeterminer(d)).toBe('authz [no policy: evaluation error]: denied by policy (evaluation error) (p1: attribute `x` not found)');
  });

  it('garbage in an entry yields a plain statement, never a throw or an invented reason', () => {
    for (const junk of [null, 7, 'deny', [], { effect: 'maybe' }]) expect(determinersOf(junk as any)).toEqual([{ interceptor: '(unknown)', message: 'the decision record is not readable' }]);
    expect(determinersOf({ effect: 'deny', status: 'timeout' })).toEqual([{ interceptor: '(chain)', message: 'chain ended with status timeout' }]);
    expect(determinersOf({ effect: 'allow', results: [1, null, { type: 'validation', valid: true, interceptor: 'x', info: { reasons: [3] } }] })).toEqual([{ interceptor: '(chain)', message: 'no interceptor denied' }]);
    const long = determinersOf({ effect: 'deny', abortedAt: { interceptor: 'r', reason: 'x'.repeat(10_000) } });
    expect(long[0].message.length).toBe(500);
  });

  it('an allow names passing authorizers given as hints and the uncovered rule', () => {
    const rec: Json = { effect: 'allow', results: [{ interceptor: 'sampling', type: 'validation', valid: true }, { interceptor: 'pii', type: 'mutation', modified: true }] };
    expect(determinersOf(rec, { authorizing: new Set(['sampling']) })).toEqual([{ interceptor: 'sampling', message: 'passed' }]);
    expect(determinersOf(rec, { uncovered: 'allow' })).toEqual([{ interceptor: '(vouch)', message: 'no authorization interceptor covers this call; config `uncovered` allows it' }]);
  });
});
