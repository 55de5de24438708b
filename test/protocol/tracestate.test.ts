// W3C Trace Context tracestate (Level 1, 3.3), and which carrier a request's trace context comes
// from: a tracestate is caller input that ends up in a signed entry and in every exported span, so
// only a valid one is kept, bounded, and never one that did not travel with the traceparent used.
import { describe, expect, it } from 'vitest';
import { MAX_TRACESTATE_CHARS, parseTracestate, traceContextOf } from '../../src/protocol/index.js';

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const P = '00f067aa0ba902b7';
const TP = `00-${T}-${P}-01`;

describe('parseTracestate', () => {
  it.each([
    ['one member', 'rojo=00f067aa0ba902b7', 'rojo=00f067aa0ba902b7'],
    ['OWS and empty members dropped (combined headers)', ' congo=t61rcWkgMzE ,\t, rojo=00f067aa0ba902b7 ,', 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'],
    ['multi-tenant key', 'fw529a3039@dt=AbC_01', 'fw529a3039@dt=AbC_01'],
    ['key characters', 'a0_-*/b=x', 'a0_-*/b=x'],
    ['value with inner space', 'k=a b', 'k=a b'],
    ['32 members', Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(','), Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(',')],
  ])('%s is kept, normalized', (_what, v, out) => {
    expect(parseTracestate(v)).toBe(out);
  });

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['only separators', ' , ,\t'],
    ['upper-case key', 'Rojo=1'],
    ['key starting with a digit (simple key)', '1abc=x'],
    ['no "="', 'rojo'],
    ['empty value', 'rojo='],
    ['value with "="', 'rojo=a=b'],
    ['value with a control character', 'rojo=a\u0001b'],
    ['value with a non-ASCII character', 'rojo=caf\u00e9'],
    ['header injection', 'rojo=1\r\nx-evil: 1'],
    ['duplicate key', 'rojo=1,congo=2,rojo=3'],
    ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['key longer than 256', `${'a'.repeat(257)}=v`],
    ['value longer than 256', `k=${'v'.repeat(257)}`],
    ['system id longer than 14', `t@${'s'.repeat(15)}=v`],
  ])('%s: the whole tracestate is ignored', (_what, v) => {
    expect(parseTracestate(v)).toBeUndefined();
  });

  it('is cut to 512 characters as W3C 3.3.1.5 says: members over 128 characters first, then from the end', () => {
    const long = `big=${'x'.repeat(200)}`;
    const small = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(12)}`); // 16 chars each
    const out = parseTracestate([small[0], long, ...small.slice(1)].join(','))!;
    expect(out.length).toBeLessThanOrEqual(MAX_TRACESTATE_CHARS);
    expect(out).not.toContain('big=');
    expect(out.startsWith(`${small[0]},${small[1]},`)).toBe(true);
    expect(out.split(',')).toEqual(small.slice(0, out.split(',').length)); // whole members, in order, from the front
    expect(out.split(',').length).toBe(30); // 30 * 16 + 29 = 509: all the short ones fit
    const many = Array.from({ length: 32 }, (_, i) => `key${String(i).padStart(2, '0')}=${'v'.repeat(20)}`); // 26 chars each
    const cut = parseTracestate(many.join(','))!;
    expect(cut.split(',')).toEqual(many.slice(0, 19)); // 19 * 26 + 18 = 512
  });
});

describe('traceContextOf: the tracestate of the carrier whose traceparent is used', () => {
  it('_meta wins, with its own tracestate', () => {
    const tc = traceContextOf({ traceparent: TP, tracestate: 'rojo=1' }, { traceparent: `00-${'a'.repeat(32)}-${P}-01`, tracestate: 'congo=2' });
    expect(tc).toMatchObject({ traceId: T, tracestate: 'rojo=1' });
  });

  it('never mixes: a _meta traceparent does not take the header tracestate, nor the header traceparent the _meta one', () => {
    expect(traceContextOf({ traceparent: TP }, { tracestate: 'congo=2' })?.tracestate).toBeUndefined();
    const fromHeader = traceContextOf({ traceparent: 'garbage', tracestate: 'rojo=1' }, { traceparent: TP, tracestate: 'congo=2' });
    expect(fromHeader).toMatchObject({ traceId: T, tracestate: 'congo=2' });
    expect(traceContextOf({ tracestate: 'rojo=1' }, { traceparent: TP })?.tracestate).toBeUndefined();
  });

  it('a tracestate without a valid traceparent is nothing; an invalid tracestate leaves the traceparent', () => {
    expect(traceContextOf({ tracestate: 'rojo=1' })).toBeUndefined();
    const tc = traceContextOf({ traceparent: TP, tracestate: 'Bad=1' });
    expect(tc).toEqual({ traceId: T, spanId: P, flags: 1, header: TP });
  });

  it('baggage is not part of what is kept', () => {
    expect(traceContextOf({ traceparent: TP, baggage: 'userId=alice,tenant=acme' })).toEqual({ traceId: T, spanId: P, flags: 1, header: TP });
  });
});
