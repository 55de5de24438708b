// The annotations of one policy as Cedar reads them, read here without a call into the engine
// when the policy's annotations have the plain form vouch's policies use: `@key("text")`, with
// whitespace and `//` comments between them. Anything else (an escape in the text, an annotation
// without a value, a repeated key) goes to the engine (cedar-engine.ts readAnnotations), whose
// answer is the reference: test/policy/annotations.test.ts holds the two equal. The engine call
// took about 8 ms a policy at start-up (policyToJson compiles on first use), most of the policy load.
import { readAnnotations, type EngineAnswer } from './cedar-engine.js';

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const PLAIN_STRING = /"([^"\\\n\r]*)"/y;

function skipBlank(text: string, at: number): number {
  for (;;) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (!text.startsWith('//', at)) return at;
    // Cedar's comment is `//[^\n\r]*`: it ends at a carriage return as at a newline.
    while (at < text.length && text[at] !== '\n' && text[at] !== '\r') at++;
  }
}

function match(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** The plain annotations before `permit` or `forbid`; undefined when they are not all plain. */
export function plainAnnotations(policyText: string): Record<string, string> | undefined {
  const out = new Map<string, string>();
  let at = skipBlank(policyText, 0);
  while (policyText[at] === '@') {
    const key = match(IDENT, policyText, at + 1);
    if (!key) return undefined;
    at = skipBlank(policyText, at + 1 + key[0].length);
    if (policyText[at] !== '(') return undefined; // `@key` alone: a value-less annotation
    at = skipBlank(policyText, at + 1);
    const value = match(PLAIN_STRING, policyText, at);
    if (!value) return undefined;
    at = skipBlank(policyText, at + value[0].length);
    if (policyText[at] !== ')') return undefined;
    if (out.has(key[0])) return undefined; // the engine says what is wrong with a repeat
    out.set(key[0], value[1]);
    at = skipBlank(policyText, at + 1);
  }
  const effect = match(/(permit|forbid)(?![A-Za-z0-9_])/y, policyText, at);
  if (!effect) return undefined;
  return Object.fromEntries(out);
}

/** The annotations of one policy (one part of policySetTextToParts), as the engine gives them. */
export function annotationsOf(policyText: string): EngineAnswer<Record<string, string>> {
  const plain = plainAnnotations(policyText);
  return plain ? { ok: true, value: plain } : readAnnotations(policyText);
}
