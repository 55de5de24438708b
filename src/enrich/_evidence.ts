// Parse an operator's evidence file (docs/enrichers-claims.md) into facts and the index the
// checker looks them up by. Every bad field is reported at once, by JSON Pointer, with the fix;
// unknown keys are refused (a typo must not silently drop a qualifier, and `__proto__` is one).
import { digestBytes, escapePointer, isPlainObject, MAX_DEPTH, parseJson, utf8, type Digest } from '../canonical/index.js';
import { ConfigError, type Issue } from '../errors.js';
import { decimalOfNumber, type Decimal } from './_decimal.js';
import { wordsOf } from './_text.js';

export const EVIDENCE_VERSION = 1;
export const MAX_EVIDENCE_BYTES = 2 * 1024 * 1024;
export const MAX_FACTS = 5_000;
const MAX_ALTERNATIVES = 8;
const MAX_PHRASE_CHARS = 200;
const MAX_PHRASE_WORDS = 16;
const MAX_ID_CHARS = 200;
const MAX_SOURCE_CHARS = 300;
const MAX_STATEMENT_CHARS = 500;
const ID = /^[A-Za-z0-9._:/-]+$/;

export interface Fact {
  /** Its place in the file: claims about several facts in one sentence come in this order. */
  order: number;
  id: string;
  /** Each alternative as its lowercased words. */
  subjects: string[][];
  attributes: string[][];
  qualifiers: string[][];
  value: { kind: 'number'; number: Decimal; yearLike: boolean; relative: Decimal; absolute: Decimal } | { kind: 'text'; alternatives: string[][] };
  /** What the correction quotes: the file's statement, or one made of the fact's fields. */
  statement: string;
  source: string;
}

/** Facts by subject phrase, then by the first word of an attribute phrase (see claims.ts). */
export interface EvidenceIndex {
  subjectsByFirstWord: Map<string, string[][]>;
  bySubject: Map<string, Map<string, { attribute: string[]; facts: Fact[] }[]>>;
}

export interface ParsedEvidence {
  name: string;
  digest: Digest;
  facts: Fact[];
  index: EvidenceIndex;
}

const FACT_KEYS = new Set(['id', 'subject', 'attribute', 'qualifiers', 'value', 'tolerance', 'statement', 'source']);
const TOP_KEYS = new Set(['version', 'facts']);

export function parseEvidenceFile(bytes: Uint8Array, name: string): ParsedEvidence {
  const fail = (issues: Issue[]): never => {
    // Every issue is in `issues`; the message names the first ten (a file of 5,000 bad facts stays readable).
    const shown = issues.slice(0, 10).map((i) => `${i.path || '/'} ${i.message}`);
    const more = issues.length > 10 ? `; and ${issues.length - 10} more` : '';
    throw new ConfigError('ERR_CONFIG', `evidence file ${name}: ${shown.join('; ')}${more} (see docs/enrichers-claims.md for the format)`, issues);
  };
  if (bytes.length > MAX_EVIDENCE_BYTES) fail([{ path: '', message: `is ${bytes.length} bytes, more than ${MAX_EVIDENCE_BYTES}: split it or keep only the facts this server needs` }]);
  let doc: unknown;
  try {
    let text = utf8.decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    doc = parseJson(text);
  } catch (cause) {
    throw new ConfigError('ERR_CONFIG', `evidence file ${name}: not valid UTF-8 JSON nested at most ${MAX_DEPTH} deep (${(cause as Error).message}): fix the file so that a JSON parser reads it`, [{ path: '', message: 'not JSON' }], { cause });
  }
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => void issues.push({ path, message });
  if (!isPlainObject(doc)) return fail([{ path: '', message: 'must be an object {"version": 1, "facts": [...]}' }]);
  for (const k of Object.keys(doc)) if (!TOP_KEYS.has(k)) bad(`/${escapePointer(k)}`, 'unknown key: remove it (allowed: version, facts)');
  if (doc.version !== EVIDENCE_VERSION) bad('/version', `must be ${EVIDENCE_VERSION}`);
  if (!Array.isArray(doc.facts)) bad('/facts', 'must be an array of facts');
  else if (doc.facts.length > MAX_FACTS) bad('/facts', `has ${doc.facts.length} facts, more than ${MAX_FACTS}: split the evidence across servers`);
  const facts: Fact[] = [];
  const ids = new Set<string>();
  if (Array.isArray(doc.facts) && doc.facts.length <= MAX_FACTS) {
    doc.facts.forEach((raw, i) => {
      const fact = parseFact(raw, `/facts/${i}`, bad);
      if (!fact) return;
      if (ids.has(fact.id)) bad(`/facts/${i}/id`, `duplicate id ${JSON.stringify(fact.id)}: give each fact its own id`);
      ids.add(fact.id);
      facts.push({ ...fact, order: facts.length });
    });
  }
  if (issues.length > 0) fail(issues);
  return { name, digest: digestBytes(bytes), facts, index: indexFacts(facts) };
}

type Bad = (path: string, message: string) => void;

function text(v: unknown, path: string, max: number, bad: Bad): string | undefined {
  if (typeof v !== 'string' || v.trim().length === 0) return void bad(path, 'must be a non-empty string');
  if (v.length > max) return void bad(path, `longer than ${max} characters: shorten it`);
  return v.trim();
}

/** A phrase or a list of alternative phrases, each as its words. */
function phrases(v: unknown, path: string, bad: Bad, required: boolean): string[][] | undefined {
  if (v === undefined && !required) return [];
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || list.length > MAX_ALTERNATIVES) return void bad(path, `must be a string or 1 to ${MAX_ALTERNATIVES} strings`);
  const out: string[][] = [];
  list.forEach((p, i) => {
    const at = Array.isArray(v) ? `${path}/${i}` : path;
    const s = text(p, at, MAX_PHRASE_CHARS, bad);
    if (s === undefined) return;
    const words = wordsOf(s);
    if (words.length === 0) bad(at, 'must contain a letter or a digit (phrases are matched by their words)');
    else if (words.length > MAX_PHRASE_WORDS) bad(at, `has more than ${MAX_PHRASE_WORDS} words: use a shorter phrase`);
    else out.push(words);
  });
  return out;
}

function tolerance(v: unknown, path: string, bad: Bad): { relative: Decimal; absolute: Decimal } | undefined {
  const zero = decimalOfNumber(0);
  if (v === undefined) return { relative: zero, absolute: zero };
  if (!isPlainObject(v)) return void bad(path, 'must be {"relative": 0.05} or {"absolute": 100} (or both)');
  for (const k of Object.keys(v)) if (k !== 'relative' && k !== 'absolute') bad(`${path}/${escapePointer(k)}`, 'unknown key: remove it (allowed: relative, absolute)');
  const rel = v.relative ?? 0;
  const absolute = v.absolute ?? 0;
  if (typeof rel !== 'number' || rel < 0 || rel > 1) return void bad(`${path}/relative`, 'must be a number from 0 to 1 (0.05 is 5%)');
  if (typeof absolute !== 'number' || absolute < 0) return void bad(`${path}/absolute`, 'must be a number 0 or more, in the fact\'s own unit');
  return { relative: decimalOfNumber(rel), absolute: decimalOfNumber(absolute) };
}

function parseFact(raw: unknown, at: string, bad: Bad): Fact | undefined {
  if (!isPlainObject(raw)) return void bad(at, 'must be an object with id, subject, attribute, value, source');
  const before = Symbol();
  let broken: unknown = before;
  const mark: Bad = (p, m) => ((broken = p), bad(p, m));
  for (const k of Object.keys(raw)) if (!FACT_KEYS.has(k)) mark(`${at}/${escapePointer(k)}`, `unknown key: remove it (allowed: ${[...FACT_KEYS].join(', ')})`);
  const id = text(raw.id, `${at}/id`, MAX_ID_CHARS, mark);
  if (id !== undefined && !ID.test(id)) mark(`${at}/id`, 'only A-Z a-z 0-9 . _ : / - allowed');
  const subjects = phrases(raw.subject, `${at}/subject`, mark, true);
  const attributes = phrases(raw.attribute, `${at}/attribute`, mark, true);
  const qualifiers = phrases(raw.qualifiers, `${at}/qualifiers`, mark, false);
  if (raw.qualifiers !== undefined && !Array.isArray(raw.qualifiers)) mark(`${at}/qualifiers`, 'must be an array of strings (every one must appear in the sentence)');
  const source = text(raw.source, `${at}/source`, MAX_SOURCE_CHARS, mark);
  const statement = raw.statement === undefined ? undefined : text(raw.statement, `${at}/statement`, MAX_STATEMENT_CHARS, mark);
  let value: Fact['value'] | undefined;
  if (typeof raw.value === 'number') {
    const tol = tolerance(raw.tolerance, `${at}/tolerance`, mark);
    const n = raw.value;
    if (tol) value = { kind: 'number', number: decimalOfNumber(n), yearLike: Number.isInteger(n) && n >= 1000 && n <= 2999, ...tol };
  } else if (typeof raw.value === 'string' || Array.isArray(raw.value)) {
    if (raw.tolerance !== undefined) mark(`${at}/tolerance`, 'applies to a number value only: remove it, or make value a number');
    const alternatives = phrases(raw.value, `${at}/value`, mark, true);
    if (alternatives) value = { kind: 'text', alternatives };
  } else mark(`${at}/value`, 'must be a number (matched within tolerance) or a string or strings (matched word for word)');
  if (broken !== before || !id || !subjects || !attributes || !qualifiers || !source || !value) return undefined;
  return { order: 0, id, subjects, attributes, qualifiers, value, statement: statement ?? statementOf(raw), source };
}

/** The correction's words when the file gives no statement: subject, attribute (qualifiers): value. */
function statementOf(raw: Record<string, unknown>): string {
  const first = (v: unknown) => String(Array.isArray(v) ? v[0] : v).trim();
  const q = Array.isArray(raw.qualifiers) && raw.qualifiers.length > 0 ? ` (${raw.qualifiers.map((x) => String(x).trim()).join(', ')})` : '';
  return `${first(raw.subject)} ${first(raw.attribute)}${q}: ${first(raw.value)}`;
}

function indexFacts(facts: Fact[]): EvidenceIndex {
  const subjectsByFirstWord = new Map<string, string[][]>();
  const bySubject = new Map<string, Map<string, { attribute: string[]; facts: Fact[] }[]>>();
  // Entries by subject and whole attribute, so building stays linear in the facts.
  const entries = new Map<string, { attribute: string[]; facts: Fact[] }>();
  for (const fact of facts) {
    for (const subject of fact.subjects) {
      const key = subject.join(' ');
      let attrs = bySubject.get(key);
      if (!attrs) {
        attrs = new Map();
        bySubject.set(key, attrs);
        const list = subjectsByFirstWord.get(subject[0]) ?? [];
        list.push(subject);
        subjectsByFirstWord.set(subject[0], list);
      }
      for (const attribute of fact.attributes) {
        const entryKey = `${key}\u0000${attribute.join(' ')}`;
        const same = entries.get(entryKey);
        // The same fact under one key twice only when it repeats an alternative: consecutive, so the last one tells.
        if (same) {
          if (same.facts[same.facts.length - 1] !== fact) same.facts.push(fact);
          continue;
        }
        const entry = { attribute, facts: [fact] };
        entries.set(entryKey, entry);
        const list = attrs.get(attribute[0]) ?? [];
        list.push(entry);
        attrs.set(attribute[0], list);
      }
    }
  }
  return { subjectsByFirstWord, bySubject };
}
