// The claim checker behind claims-enricher (issue 39): sentences of a tool result checked against
// an operator's evidence file. Pure and deterministic (no clock, randomness, network or Node API),
// bounded in what it reads and returns; the score is advisory. Format and limits: docs/enrichers-claims.md.
import type { Digest } from '../canonical/index.js';
import { parseEvidenceFile, type EvidenceIndex, type Fact } from './_evidence.js';
import { factsNamed, Fuel, judge, SentenceView, type Verdict } from './_match.js';
import { pairSafe, sliceSafe, splitSentences } from './_text.js';

export { EVIDENCE_VERSION, MAX_EVIDENCE_BYTES, MAX_FACTS } from './_evidence.js';

/** Characters of a result read; the rest is not checked. */
export const MAX_TEXT_CHARS = 100_000;
/** Sentences read, and claims returned, per result. */
export const MAX_SENTENCES = 2_000;
export const MAX_CLAIMS = 50;
/**
 * Phrase lookups and facts examined per result (about 0.1-0.3 s of work): past it the remaining
 * sentences are not checked. Ordinary evidence and text use a small part of it.
 */
export const MAX_MATCH_WORK = 2_000_000;
/** A claim's text in the record is the sentence, cut to this many characters. */
export const MAX_CLAIM_TEXT_CHARS = 300;

/** A parsed evidence file. Build it with parseEvidence; its fields are for the checker. */
export interface EvidenceSet {
  readonly name: string;
  /** Of the file's exact bytes. */
  readonly digest: Digest;
  /** `offline:sha256:<hex>`: which evidence decided a record. */
  readonly checker: string;
  readonly facts: readonly Fact[];
  readonly index: EvidenceIndex;
}

export type ClaimVerdict = Verdict;

export interface CheckedClaim {
  text: string;
  verdict: ClaimVerdict;
  /** The fact the claim was checked against (also on an unverified claim that names a fact but states no value vouch reads). */
  evidence?: { id: string; source: string };
  /** On a contradicted claim: the fact's statement, quoted, with its source. */
  correction?: string;
}

/** The structured record at `_meta["io.vouch/enrichment"]` (the enricher contract). */
export interface ClaimsRecord {
  kind: 'claims';
  /** `offline:sha256:<hex>` of the evidence file, or `remote:<server name>`. */
  checker: string;
  /** supported / (supported + contradicted); null when no claim was checkable. Advisory. */
  score: number | null;
  counts: { claims: number; supported: number; contradicted: number; unverified: number };
  claims: CheckedClaim[];
}

/** Parse an evidence file's bytes; throws ConfigError ERR_CONFIG listing every bad field and its fix. */
export function parseEvidence(bytes: Uint8Array, name: string): EvidenceSet {
  const parsed = parseEvidenceFile(bytes, name);
  return Object.freeze({ ...parsed, checker: `offline:${parsed.digest}` });
}

function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  // Whole code points only: never half a surrogate pair.
  return `${s.slice(0, pairSafe(s, max - 1))}\u2026`;
}

/** A sentence is a claim when it is a statement of at least three words naming a fact, a number or a name. */
function checkable(s: SentenceView): boolean {
  const words = s.tokens.filter((t) => /\p{L}/u.test(t.word));
  if (words.length < 3) return false;
  return s.tokens.some((t) => /\p{N}/u.test(t.word)) || s.tokens.slice(1).some((t) => t.capital && t.word.length > 1);
}

/** Check the text's claims against the evidence. Same text and evidence, same record, byte for byte. */
export function checkClaims(text: string, evidence: EvidenceSet): ClaimsRecord {
  const claims: CheckedClaim[] = [];
  const fuel = new Fuel(MAX_MATCH_WORK);
  for (const sentence of splitSentences(sliceSafe(text, MAX_TEXT_CHARS), MAX_SENTENCES)) {
    if (claims.length >= MAX_CLAIMS || fuel.left < 0) break;
    if (sentence.question) continue;
    const view = new SentenceView(sentence.text);
    const claimText = cut(sentence.text, MAX_CLAIM_TEXT_CHARS);
    const named = factsNamed(view, evidence.index, fuel);
    if (named.length === 0) {
      if (checkable(view)) claims.push({ text: claimText, verdict: 'unverified' });
      continue;
    }
    for (const c of named) {
      if (claims.length >= MAX_CLAIMS) break;
      const verdict = judge(view, c);
      const claim: CheckedClaim = { text: claimText, verdict, evidence: { id: c.fact.id, source: c.fact.source } };
      if (verdict === 'contradicted') claim.correction = `"${c.fact.statement}" (source: ${c.fact.source})`;
      claims.push(claim);
    }
  }
  const count = (v: Verdict) => claims.filter((c) => c.verdict === v).length;
  const supported = count('supported');
  const contradicted = count('contradicted');
  const checked = supported + contradicted;
  return {
    kind: 'claims',
    checker: evidence.checker,
    score: checked === 0 ? null : supported / checked,
    counts: { claims: claims.length, supported, contradicted, unverified: count('unverified') },
    claims,
  };
}

/** JSON quoting, plus the line breaks JSON leaves raw (U+2028, U+2029, NEL). */
const quote = (s: string) => JSON.stringify(s).replace(/[\u2028\u2029\u0085]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const LABEL: Record<Verdict, string> = { supported: 'supported', contradicted: 'CONTRADICTED', unverified: 'unverified' };

/**
 * The model-visible block. Claim texts are JSON-quoted, so a result cannot write a line that
 * reads as one of vouch's verdicts (its newlines and quotes stay escaped).
 */
export function renderClaims(record: ClaimsRecord): string {
  const { claims, supported, contradicted, unverified } = record.counts;
  const score = record.score === null ? 'no score (no claim could be checked against the evidence)' : `score ${Number(record.score.toFixed(2))}`;
  const lines = [
    `vouch checked this result's claims against evidence (${record.checker}): ${claims} claim${claims === 1 ? '' : 's'}, ${supported} supported, ${contradicted} contradicted, ${unverified} unverified; ${score}.`,
    'The score is supported / (supported + contradicted): advisory, rule-based, and silent on claims the evidence does not cover.',
  ];
  if (claims >= MAX_CLAIMS) lines.push(`Only the first ${MAX_CLAIMS} claims were checked.`);
  for (const c of record.claims) {
    const source = c.verdict === 'supported' && c.evidence ? ` (source: ${c.evidence.source})` : '';
    const correction = c.correction ? ` Correction: ${c.correction}` : '';
    lines.push(`- ${LABEL[c.verdict]}: ${quote(c.text)}${source}${correction}`);
  }
  return lines.join('\n');
}
