// The text side of the claim checker: sentences, word tokens and numbers, each found by a
// single left-to-right scan (no backtracking regex), so hostile text costs time linear in its size.
import { parseDecimal, scale, type Decimal } from './_decimal.js';

export interface Sentence {
  /** The sentence as written, whitespace collapsed. */
  text: string;
  question: boolean;
}

export interface Token {
  /** Lowercased. */
  word: string;
  start: number;
  end: number;
  /** First letter uppercase in the text (a name, when not the sentence's first word). */
  capital: boolean;
}

export interface NumberMention {
  value: Decimal;
  start: number;
  end: number;
  /** A bare four-digit integer 1000-2999: read as a year, not as an amount, unless the fact's value is one. */
  yearLike: boolean;
}

/** `i`, or one less when `i` would fall between the two halves of a surrogate pair: no cut makes a lone surrogate (JCS refuses one). */
export function pairSafe(s: string, i: number): number {
  const hi = s.charCodeAt(i - 1);
  const lo = s.charCodeAt(i);
  return i > 0 && hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff ? i - 1 : i;
}

/** `s` cut to at most `max` code units, never inside a surrogate pair. */
export const sliceSafe = (s: string, max: number): string => (s.length <= max ? s : s.slice(0, pairSafe(s, max)));

/** Sentences longer than this are cut: no model writes one, and every later step is per sentence. */
export const MAX_SENTENCE_CHARS = 2_000;

/** Words after which a period does not end a sentence ("ACME Inc. reported", "Dr. Doe"). */
const ABBREVIATIONS = new Set(['inc', 'ltd', 'corp', 'co', 'mr', 'mrs', 'ms', 'dr', 'st', 'vs', 'no', 'fig', 'approx', 'est', 'jr', 'sr', 'e.g', 'i.e', 'etc']);

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0';
const isLower = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();

/** The word (letters, digits, inner periods) that ends just before `end`. */
function wordBefore(text: string, end: number): string {
  let i = end;
  while (i > 0 && /[\p{L}\p{N}.]/u.test(text[i - 1]) && end - i < 12) i--;
  return text.slice(i, end).toLowerCase();
}

/**
 * Split at line breaks and at . ! ? followed by white space or the end, except after an
 * abbreviation or an initial, or when the next word starts lowercase ("4.2 bn. in sales").
 */
export function splitSentences(text: string, maxSentences: number): Sentence[] {
  const out: Sentence[] = [];
  let start = 0;
  const push = (end: number, question: boolean) => {
    const raw = text.slice(start, end);
    start = end;
    const collapsed = raw.split(/\s+/).filter((w) => w.length > 0).join(' ');
    // A list marker or a heading mark is not part of the claim.
    const t = collapsed.replace(/^(?:[-*+•#>]+ )+/, '');
    if (t.length > 0 && out.length < maxSentences) out.push({ text: t, question });
  };
  for (let i = 0; i < text.length && out.length < maxSentences; i++) {
    const c = text[i];
    if (c === '\n') {
      push(i + 1, false);
      continue;
    }
    if (i - start >= MAX_SENTENCE_CHARS && pairSafe(text, i) === i) {
      push(i, false);
      continue;
    }
    if (c !== '.' && c !== '!' && c !== '?') continue;
    const next = text[i + 1];
    if (next !== undefined && !isSpace(next) && next !== '\n' && next !== '"' && next !== "'" && next !== ')') continue;
    if (c === '.') {
      const w = wordBefore(text, i).replace(/^\.+/, '');
      if (ABBREVIATIONS.has(w) || /^\p{L}$/u.test(w) || /\.\p{L}$/u.test(w)) continue;
      let j = i + 1;
      while (j < text.length && j - i < 100 && isSpace(text[j])) j++;
      if (j < text.length && isLower(text[j])) continue;
    }
    push(i + 1, c === '?');
  }
  push(text.length, false);
  return out;
}

/** Runs of letters and digits, lowercased; the regex has no alternation to backtrack into. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const first = m[0][0];
    out.push({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length, capital: first !== first.toLowerCase() });
  }
  return out;
}

/** Words a phrase of the evidence is matched by (the same tokenizer as the text, so they agree). */
export const wordsOf = (phrase: string): string[] => tokenize(phrase).map((t) => t.word);

// Maps, not object literals: a word of the text ("constructor") must never find Object.prototype.
const SCALE_WORDS = new Map([['thousand', 3], ['million', 6], ['billion', 9], ['trillion', 12], ['mn', 6], ['mln', 6], ['bn', 9], ['tn', 12], ['percent', 0]]);
const SCALE_SUFFIXES = new Map([['k', 3], ['m', 6], ['mn', 6], ['mln', 6], ['b', 9], ['bn', 9], ['tn', 12]]);
const MAX_DIGITS = 40;
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/**
 * Amounts in a sentence: 4.2, 4,100,000,000, -3, 12%, 4.2 billion, $4.2bn. Left out: a number
 * glued to letters (Q3, 3rd, H2O), part of a date, time or version (12/05, 10:30, 4.2.1), or
 * longer than 40 digits. Currency signs and units are not read (no conversion).
 */
export function findNumbers(s: string): NumberMention[] {
  const out: NumberMention[] = [];
  let i = 0;
  while (i < s.length) {
    if (!isDigit(s[i])) {
      i++;
      continue;
    }
    const begin = i;
    const negative = (s[i - 1] === '-' || s[i - 1] === '\u2212') && !isWordChar(s[i - 2]);
    let intPart = '';
    let grouped = false;
    while (isDigit(s[i])) intPart += s[i++];
    // Thousands groups: a comma and exactly three digits, not a fourth.
    while (s[i] === ',' && isDigit(s[i + 1]) && isDigit(s[i + 2]) && isDigit(s[i + 3]) && !isDigit(s[i + 4])) {
      intPart += s.slice(i + 1, i + 4);
      i += 4;
      grouped = true;
    }
    let frac = '';
    if (s[i] === '.' && isDigit(s[i + 1])) {
      i++;
      while (isDigit(s[i])) frac += s[i++];
    }
    let end = i;
    // Glued to a word, or a date, time, ratio or version: skip the whole run of digits and separators.
    const glued = isWordChar(s[begin - 1]) || s[begin - 1] === '/' || s[begin - 1] === ':' || s[begin - 1] === '.';
    const continued = (s[i] === '.' || s[i] === ',' || s[i] === '/' || s[i] === ':') && isDigit(s[i + 1]);
    if (glued || continued || intPart.length + frac.length > MAX_DIGITS) {
      while (i < s.length && (isDigit(s[i]) || s[i] === '.' || s[i] === ',' || s[i] === '/' || s[i] === ':')) i++;
      while (isWordChar(s[i])) i++;
      continue;
    }
    let power = 0;
    let marked = false;
    let j = i;
    while (j < s.length && j - i < 10 && /\p{L}/u.test(s[j])) j++;
    if (j > i) {
      // Letters attached: a scale suffix (4.2bn, 500k), or a number vouch does not read (3rd, 5kg).
      const suffix = s.slice(i, j).toLowerCase();
      const suffixPower = SCALE_SUFFIXES.get(suffix);
      if (suffixPower === undefined || isWordChar(s[j])) {
        while (isWordChar(s[j])) j++;
        i = j;
        continue;
      }
      power = suffixPower;
      marked = true;
      end = j;
    } else if (s[i] === '%') {
      marked = true;
      end = i + 1;
    } else if (s[i] === ' ') {
      // A scale word after one space (4.2 billion, 3 bn, 12 percent); never a one-letter unit (10 m).
      let k = i + 1;
      while (k < s.length && k - i < 12 && /\p{L}/u.test(s[k])) k++;
      const word = s.slice(i + 1, k).toLowerCase();
      const wordPower = SCALE_WORDS.get(word);
      if (!isWordChar(s[k]) && wordPower !== undefined) {
        power = wordPower;
        marked = true;
        end = k;
      }
    }
    const value = scale(parseDecimal(`${negative ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`)!, power);
    const yearLike = !negative && !grouped && !marked && frac === '' && intPart.length === 4 && intPart >= '1000' && intPart <= '2999';
    out.push({ value, start: negative ? begin - 1 : begin, end, yearLike });
    i = Math.max(end, i);
  }
  return out;
}
