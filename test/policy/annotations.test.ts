// Policy annotations read without the engine (policy/annotations.ts) must be exactly what the
// engine reads (policyToJson), for the plain form it handles and for every form it hands over.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { annotationsOf, plainAnnotations } from '../../src/policy/annotations.js';
import { readAnnotations, splitPolicyText } from '../../src/policy/cedar-engine.js';

const CORPUS = [
  readFileSync(new URL('../../fixtures/config/policy.cedar', import.meta.url), 'utf8'),
  `@id("a") @reason("x y") permit(principal, action, resource);
// a comment between policies
@id("b")
// a comment between annotations, with ) and @id("not-this") in it
@other ( "q" )
forbid(principal, action, resource) when { context.x == "@id(\\"fake\\")" };
permit(principal, action, resource);
@id("c")@novalue permit(principal, action, resource);
@id("d\\u{1F600}\\n") permit(principal, action, resource);
@id("e\\"quoted\\"") forbid(principal, action, resource);
@id("") permit(principal, action, resource);
@__proto__("p") @constructor("c") @id("f") permit(principal, action, resource);
@id("g\\\\") permit(principal, action, resource);
@Id("h") @ID("i") permit(principal, action, resource);
@id("ünïcödé 中文") permit(principal, action, resource);
@id("tab\\there") permit(principal, action, resource);
@id("j")permit(principal, action, resource);`,
  // A comment ends at a carriage return too: the @id after it is an annotation.
  '@reason("r") // note\r@id("after-cr")\npermit(principal, action, resource);\r\n@id("crlf")\r\n// c\r\n@other("o")\r\nforbid(principal, action, resource);',
];

describe('policy annotations without the engine', () => {
  const parts = CORPUS.flatMap((text) => {
    const split = splitPolicyText(text);
    if (!split.ok) throw new Error(`corpus does not parse: ${JSON.stringify(split.problems)}`);
    return split.value.policies;
  });

  it('gives exactly the engine answer for every policy of the corpus', () => {
    expect(parts.length).toBeGreaterThan(20);
    for (const part of parts) {
      const engine = readAnnotations(part);
      expect(engine.ok, part).toBe(true);
      expect(annotationsOf(part), part).toEqual(engine);
    }
  });

  it('reads the plain form itself (the example policies all), and hands every other form to the engine', () => {
    const plain = parts.filter((p) => plainAnnotations(p) !== undefined);
    const handed = parts.filter((p) => plainAnnotations(p) === undefined);
    // Every policy of the shipped example is plain: start-up makes no engine call for annotations.
    const example = splitPolicyText(CORPUS[0]);
    if (!example.ok) throw new Error('the example policy does not parse');
    for (const p of example.value.policies) expect(plainAnnotations(p), p).toBeDefined();
    expect(plain.length).toBeGreaterThan(15);
    // Escapes, a value-less annotation: the engine's.
    expect(handed.some((p) => p.includes('@novalue'))).toBe(true);
    expect(handed.some((p) => p.includes('\\u{1F600}'))).toBe(true);
    expect(handed.some((p) => p.includes('\\"quoted'))).toBe(true);
    for (const p of handed) expect(p).toMatch(/\\|@novalue/);
  });

  it('ends a comment at a carriage return, as Cedar does', () => {
    const cr = parts.find((p) => p.includes('after-cr'))!;
    expect(plainAnnotations(cr)).toEqual({ reason: 'r', id: 'after-cr' });
    expect(readAnnotations(cr)).toEqual({ ok: true, value: { reason: 'r', id: 'after-cr' } });
  });

  it('never takes an @id inside a comment or a condition string for an annotation', () => {
    const b = parts.find((p) => p.startsWith('@id("b")'))!;
    expect(plainAnnotations(b)).toEqual({ id: 'b', other: 'q' });
    expect(plainAnnotations('@id("x") // @id("y")\npermit(principal, action, resource);')).toEqual({ id: 'x' });
  });

  it('hands over what is not a policy start: a repeated key, a missing effect, junk', () => {
    expect(plainAnnotations('@id("a") @id("b") permit(principal, action, resource);')).toBeUndefined();
    expect(plainAnnotations('@id("a") permitted(principal, action, resource);')).toBeUndefined();
    expect(plainAnnotations('@id("a"')).toBeUndefined();
    expect(plainAnnotations('@("a") permit(principal, action, resource);')).toBeUndefined();
    expect(plainAnnotations('@id(a) permit(principal, action, resource);')).toBeUndefined();
  });
});
