// parseEvidence: an operator's evidence file is parsed strictly. Every bad field is reported at
// once as ERR_CONFIG with its JSON Pointer and the fix; hostile files (prototype keys, depth,
// size, bad UTF-8) are refused the same way and never crash or pollute.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { checkClaims, MAX_EVIDENCE_BYTES, MAX_FACTS, parseEvidence } from '../../src/enrich/claims.js';

const enc = (s: string) => new TextEncoder().encode(s);
const fact = (over: Record<string, unknown> = {}) => ({ id: 'f', subject: 'ACME', attribute: 'revenue', value: 1, source: 'S', ...over });
const file = (facts: unknown[], top: Record<string, unknown> = {}) => enc(JSON.stringify({ version: 1, facts, ...top }));

/** The ConfigError parseEvidence throws (the test fails if it does not throw one). */
function refusal(bytes: Uint8Array): ConfigError {
  try {
    parseEvidence(bytes, 'ev.json');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect(e).toMatchObject({ code: 'ERR_CONFIG' });
    expect((e as Error).message).toMatch(/^evidence file ev\.json: /);
    return e as ConfigError;
  }
  throw new Error('parseEvidence accepted the file');
}
const paths = (e: ConfigError) => e.issues.map((i) => i.path);

describe('parseEvidence', () => {
  it('accepts the documented shape: alternatives, qualifiers, both tolerances, a statement; a BOM is skipped', () => {
    const ev = parseEvidence(enc(`\ufeff${JSON.stringify({ version: 1, facts: [fact({ subject: ['ACME', 'ACME Corp'], qualifiers: ['2025'], tolerance: { relative: 0.01, absolute: 5 }, statement: 'x' }), fact({ id: 'g', value: ['Jane Doe'] })] })}`), 'ev.json');
    expect(ev.facts.map((f) => f.id)).toEqual(['f', 'g']);
    expect(ev.name).toBe('ev.json');
    expect(ev.checker).toMatch(/^offline:sha256:[0-9a-f]{64}$/);
  });

  it('refuses what is not UTF-8 JSON, or too deep, naming the fix', () => {
    expect(refusal(enc('{"version": 1, "facts": [')).message).toMatch(/fix the file so that a JSON parser reads it/);
    refusal(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    refusal(enc(`${'['.repeat(100_000)}${']'.repeat(100_000)}`));
    expect(paths(refusal(enc('[]')))).toEqual(['']);
  });

  it('lists every bad field by its pointer, with the fix', () => {
    const e = refusal(file([fact({ id: 'bad id!' }), fact({ subject: '!!!' }), fact({ value: true }), fact({ value: 'x', tolerance: { relative: 0.1 } }), fact({ tolerance: { relative: 2 } }), fact({ tolerance: { absolute: -1 } }), fact({ source: '' }), fact({ qualifiers: '2025' })], { version: 2 }));
    expect(paths(e)).toEqual(['/version', '/facts/0/id', '/facts/1/subject', '/facts/2/value', '/facts/3/tolerance', '/facts/4/tolerance/relative', '/facts/5/tolerance/absolute', '/facts/6/source', '/facts/7/qualifiers']);
    expect(e.message).toMatch(/\/facts\/3\/tolerance applies to a number value only: remove it, or make value a number/);
    expect(e.message).toMatch(/\/facts\/4\/tolerance\/relative must be a number from 0 to 1/);
  });

  it('refuses duplicate ids and unknown keys (a typo must not drop a qualifier silently)', () => {
    expect(paths(refusal(file([fact(), fact()])))).toEqual(['/facts/1/id']);
    const e = refusal(file([fact({ qualifier: ['2025'] })], { note: 'x' }));
    expect(paths(e)).toEqual(['/note', '/facts/0/qualifier']);
    expect(e.message).toMatch(/unknown key: remove it/);
  });

  it('prototype keys anywhere are unknown keys: refused, and nothing is polluted', () => {
    const hostile = `{"version": 1, "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}, "facts": [{"id": "f", "subject": "ACME", "attribute": "revenue", "value": 1, "source": "S", "__proto__": {"polluted": 1}, "tolerance": {"__proto__": {"relative": 1}}}]}`;
    expect(paths(refusal(enc(hostile)))).toEqual(['/__proto__', '/constructor', '/facts/0/__proto__', '/facts/0/tolerance/__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A word that names a prototype member is just a word.
    const ev = parseEvidence(file([fact({ subject: 'constructor', attribute: '__proto__', value: 'toString' })]), 'ev.json');
    expect(checkClaims('The constructor __proto__ is toString.', ev).claims.map((c) => c.verdict)).toEqual(['supported']);
  });

  it('bounds: file size, fact count, alternatives, phrase length and words', () => {
    expect(refusal(new Uint8Array(MAX_EVIDENCE_BYTES + 1)).message).toMatch(/more than 2097152: split it/);
    expect(refusal(file(Array.from({ length: MAX_FACTS + 1 }, (_, i) => fact({ id: `f${i}` })))).message).toMatch(/more than 5000: split the evidence/);
    expect(paths(refusal(file([fact({ subject: Array.from({ length: 9 }, (_, i) => `s${i}`) })])))).toEqual(['/facts/0/subject']);
    expect(paths(refusal(file([fact({ attribute: 'x'.repeat(201) })])))).toEqual(['/facts/0/attribute']);
    expect(paths(refusal(file([fact({ attribute: 'a '.repeat(17) })])))).toEqual(['/facts/0/attribute']);
  });

  it('evidence built to collide (5,000 facts under one subject, attribute or first word) and text that names it: bounded work', () => {
    const cases: [unknown[], string][] = [
      [Array.from({ length: MAX_FACTS }, (_, i) => fact({ id: `f${i}`, subject: ['ACME', `the unit ${i}`], attribute: [`metric ${i}`, 'the'], value: i })), 'The unit 7 metric 7 was 7. '.repeat(2_000) + 'ACME the the the 1.'],
      [Array.from({ length: MAX_FACTS }, (_, i) => fact({ id: `f${i}`, qualifiers: [`q${i}`, 'x', 'y', 'z', 'w', 'v', 'u', 't'] })), 'acme revenue grew a lot. '.repeat(4_000)],
      [Array.from({ length: MAX_FACTS }, (_, i) => fact({ id: `f${i}`, subject: Array.from({ length: 8 }, (_, k) => `the ${i} ${k}`) })), 'the the the the the the the the the revenue is fine. '.repeat(2_000)],
    ];
    for (const [facts, text] of cases) {
      const ev = parseEvidence(file(facts), 'big.json');
      const t0 = performance.now();
      const r = checkClaims(text, ev);
      // Measured 0.4-0.9 s each on the shared 2-core machine; a regression to quadratic work takes tens of seconds.
      expect(performance.now() - t0).toBeLessThan(4_000);
      expect(r.claims.length).toBeLessThanOrEqual(50);
    }
  });
});
