// One sentence against the evidence: which facts it speaks to (subject, attribute and every
// qualifier named in it) and what it says of each (supported, contradicted, or unverified).
// Rule-based and explainable; the limits are listed in docs/enrichers-claims.md.
import { withinTolerance } from './_decimal.js';
import type { EvidenceIndex, Fact } from './_evidence.js';
import { findNumbers, tokenize, type NumberMention, type Token } from './_text.js';

export type Verdict = 'supported' | 'contradicted' | 'unverified';

export interface FactVerdict {
  fact: Fact;
  verdict: Verdict;
}

/** A sentence with these words says the opposite or nothing definite: vouch does not judge it. */
const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'neither', 'nor', 'cannot', 'isn', 'wasn', 'aren', 'weren', 'doesn', 'didn', 'don', 'hasn', 'haven', 'hadn', 'won', 'nothing']);
/** After the attribute, these introduce the value a sentence states ("the CEO of ACME is ..."). */
const COPULAS = new Set(['is', 'was', 'are', 'were', 'be', 'been', 'remains', 'remained', 'became', 'equals', 'equalled', 'equaled']);
/** Where a stated value ends. */
const CLAUSE_WORDS = new Set(['and', 'but', 'which', 'who', 'while', 'whereas', 'because', 'since', 'although', 'though', 'after', 'before', 'when', 'according']);
const ARTICLES = new Set(['the', 'a', 'an']);
const MAX_VALUE_WORDS = 8;

interface Mention {
  from: number; // first token
  to: number; // one past the last token
}

export class SentenceView {
  readonly tokens: Token[];
  private readonly at = new Map<string, number[]>();
  private numbersCache?: NumberMention[];
  constructor(readonly text: string) {
    this.tokens = tokenize(text);
    this.tokens.forEach((t, i) => {
      const list = this.at.get(t.word);
      if (list) list.push(i);
      else this.at.set(t.word, [i]);
    });
  }
  get words(): IterableIterator<string> {
    return this.at.keys();
  }
  get numbers(): NumberMention[] {
    return (this.numbersCache ??= findNumbers(this.text));
  }
  /** How many times a word stands in the sentence: what finding a phrase that starts with it costs. */
  count(word: string): number {
    return this.at.get(word)?.length ?? 0;
  }
  /** The first place the phrase's words stand in a row, if any. */
  find(words: string[]): Mention | undefined {
    for (const i of this.at.get(words[0]) ?? []) {
      if (words.every((w, k) => this.tokens[i + k]?.word === w)) return { from: i, to: i + words.length };
    }
    return undefined;
  }
  charStart(m: Mention): number {
    return this.tokens[m.from].start;
  }
  charEnd(m: Mention): number {
    return this.tokens[m.to - 1].end;
  }
}

interface Candidate {
  fact: Fact;
  subject: Mention;
  attribute: Mention;
  qualifiers: Mention[];
}

/**
 * Work left for one checkClaims call, counted in phrase lookups and facts examined: evidence built
 * to collide (thousands of facts under one subject and attribute) and text that names them again
 * and again stop here, deterministically, instead of at a clock.
 */
export class Fuel {
  constructor(public left: number) {}
  burn(n = 1): boolean {
    this.left -= n;
    return this.left >= 0;
  }
}

/** Every fact the sentence names; of facts sharing subject and attribute, those with the most qualifiers named. */
export function factsNamed(s: SentenceView, index: EvidenceIndex, fuel: Fuel): Candidate[] {
  const found = new Map<string, Candidate>();
  const words = [...s.words];
  for (const w of words) {
    for (const subjectWords of index.subjectsByFirstWord.get(w) ?? []) {
      if (!fuel.burn(1 + s.count(w))) break;
      const subject = s.find(subjectWords);
      if (!subject) continue;
      const attrs = index.bySubject.get(subjectWords.join(' '))!;
      for (const aw of words) {
        for (const entry of attrs.get(aw) ?? []) {
          if (!fuel.burn(1 + s.count(aw))) break;
          const attribute = s.find(entry.attribute);
          if (!attribute) continue;
          for (const fact of entry.facts) {
            if (!fuel.burn()) break;
            if (found.has(fact.id)) continue;
            const qualifiers: Mention[] = [];
            for (const q of fact.qualifiers) {
              fuel.burn(s.count(q[0]));
              const m = s.find(q);
              if (!m) break;
              qualifiers.push(m);
            }
            if (qualifiers.length === fact.qualifiers.length) found.set(fact.id, { fact, subject, attribute, qualifiers });
          }
        }
      }
    }
  }
  const best = new Map<string, number>();
  const group = (f: Fact) => `${f.subjects[0].join(' ')}\u0000${f.attributes[0].join(' ')}`;
  for (const c of found.values()) best.set(group(c.fact), Math.max(best.get(group(c.fact)) ?? 0, c.fact.qualifiers.length));
  return [...found.values()].filter((c) => c.fact.qualifiers.length === best.get(group(c.fact))).sort((a, b) => a.fact.order - b.fact.order);
}

export function judge(s: SentenceView, c: Candidate): Verdict {
  if (s.tokens.some((t) => NEGATIONS.has(t.word))) return 'unverified';
  return c.fact.value.kind === 'number' ? judgeNumber(s, c) : judgeText(s, c);
}

function judgeNumber(s: SentenceView, c: Candidate): Verdict {
  const v = c.fact.value;
  if (v.kind !== 'number') return 'unverified';
  // A number inside the subject, attribute or a qualifier ("Boeing 747", "2025") is not the value.
  const named = [c.subject, c.attribute, ...c.qualifiers].map((m) => [s.charStart(m), s.charEnd(m)] as const);
  const amounts = s.numbers.filter((n) => (v.yearLike || !n.yearLike) && !named.some(([a, b]) => n.start < b && n.end > a));
  let chosen: NumberMention | undefined;
  if (c.qualifiers.length > 0) {
    // Nearest a qualifier: "4.2 bn in 2025 and 3.9 bn in 2024" gives each year its own amount.
    const distance = (n: NumberMention) => Math.min(...named.slice(2).map(([a, b]) => (n.end <= a ? a - n.end : n.start - b)));
    for (const n of amounts) if (!chosen || distance(n) < distance(chosen)) chosen = n;
  } else {
    const attrEnd = s.charEnd(c.attribute);
    chosen = amounts.find((n) => n.start >= attrEnd) ?? amounts.filter((n) => n.end <= s.charStart(c.attribute)).at(-1);
  }
  if (!chosen) return 'unverified';
  return withinTolerance(chosen.value, v.number, v.relative, v.absolute) ? 'supported' : 'contradicted';
}

function judgeText(s: SentenceView, c: Candidate): Verdict {
  const v = c.fact.value;
  if (v.kind !== 'text') return 'unverified';
  if (v.alternatives.some((a) => s.find(a) !== undefined)) return 'supported';
  // Otherwise a value stated after the attribute ("is X", "was X", ": X") that is not the fact's contradicts it.
  const t = s.tokens;
  for (let i = c.attribute.to; i < t.length; i++) {
    const gap = s.text.slice(t[i - 1].end, t[i].start);
    const start = gap.includes(':') || gap.includes('=') ? i : COPULAS.has(t[i].word) ? i + 1 : -1;
    if (start < 0) continue;
    const value: string[] = [];
    for (let k = start; k < t.length && value.length < MAX_VALUE_WORDS; k++) {
      if (k > start && /[,;()]/.test(s.text.slice(t[k - 1].end, t[k].start))) break;
      if (CLAUSE_WORDS.has(t[k].word)) break;
      if (value.length === 0 && ARTICLES.has(t[k].word)) continue;
      value.push(t[k].word);
    }
    return value.length > 0 ? 'contradicted' : 'unverified';
  }
  return 'unverified';
}
