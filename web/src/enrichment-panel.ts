// What an enricher added to a result, beside its step in the decision view: its kind, score and
// claim counts as the signed entry records them, and the addition itself (the note the model read
// and the structured record), fetched from the payload store by the digest the entry names and
// checked against it; "erased" with the erasure entry's seq where retention or a request removed it.
// The note was written by an enricher, quoting a tool result an upstream wrote: text only (dom.ts).
import { digestJson, isDigest } from '../../src/canonical/index.js';
import { ApiError, getJson } from './api.js';
import { h, pretty } from './dom.js';

type Rec = Record<string, any>;
const COUNT_ORDER = ['claims', 'supported', 'contradicted', 'unverified'];

export const isEnricherResult = (r: Rec): boolean => r?.info?.role === 'enricher';

/** kind · score · counts, from the entry (never from the stored addition: the entry is what is signed). */
function factsLine(info: Rec): string {
  const parts: string[] = [];
  if (typeof info.kind === 'string') parts.push(`kind ${info.kind}`);
  if ('score' in info) parts.push(`score ${info.score === null ? 'none (no checkable claim)' : String(info.score)}`);
  if (info.counts && typeof info.counts === 'object') {
    // The entry's keys are in canonical (sorted) order; read them as a sentence: the total, then each verdict.
    const order = (k: string) => (COUNT_ORDER.includes(k) ? COUNT_ORDER.indexOf(k) : COUNT_ORDER.length);
    const counts = Object.entries(info.counts as Rec).sort(([a], [b]) => order(a) - order(b) || (a < b ? -1 : 1));
    parts.push(`claims: ${counts.map(([k, n]) => `${String(n)} ${k}`).join(', ')}`);
  }
  if (info.mode === 'audit') parts.push('audit mode (not shown to the model)');
  return parts.join(' · ');
}

/** Why the addition is not shown: erased (by which entry), or the service's own answer. */
async function missing(digest: string, seq: number, e: unknown): Promise<HTMLElement> {
  if (!(e instanceof ApiError && e.status === 404)) return h('p', { class: 'bad', 'data-enrichment': 'unavailable' }, `cannot fetch the enrichment: ${(e as Error).message}`);
  try {
    const { erasure } = await getJson<{ erasure: Rec }>(`/v1/payloads/${encodeURIComponent(digest)}/erasure?after=${seq}`);
    const why = [erasure.retention ? 'by retention' : erasure.by ? `at the request of ${String(erasure.by)}` : '', erasure.reason ? `reason: ${String(erasure.reason)}` : ''].filter(Boolean).join('; ');
    return h('p', { class: 'muted', 'data-enrichment': 'erased', 'data-erasure': String(erasure.seq) }, `erased by entry #${String(erasure.seq)} (${String(erasure.time)}${why ? `; ${why}` : ''}): only its digest remains`);
  } catch {
    // No erasure entry names it: the log names a payload it does not hold (replay reports it).
    return h('p', { class: 'bad', 'data-enrichment': 'missing' }, 'not stored, and no erasure entry removed it');
  }
}

function additionView(digest: string, value: unknown): HTMLElement {
  const a: Rec = value && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : {};
  const matches = digestJson(value as never) === digest;
  const blocks: Rec[] = Array.isArray(a.content) ? a.content : [];
  return h('div', { 'data-enrichment': 'shown' },
    h('p', { class: matches ? 'good small' : 'bad', 'data-digest-ok': String(matches) }, matches ? '✓ the stored addition matches the digest the entry records' : '✗ the stored addition does not match the digest the entry records'),
    blocks.length
      ? h('div', {}, h('b', {}, 'note for the model:'), ...blocks.map((b) => h('pre', { class: 'enrichment-note' }, typeof b?.text === 'string' ? b.text : pretty(b))))
      : h('p', { class: 'muted' }, 'no note for the model'),
    'record' in a ? h('div', {}, h('b', {}, 'record:'), h('pre', { class: 'enrichment-record' }, pretty(a.record))) : h('p', { class: 'muted' }, 'no record'));
}

/** One enricher result of the decision at `seq`, its addition fetched. */
export async function renderEnrichment(r: Rec, seq: number): Promise<HTMLElement> {
  const info: Rec = r.info ?? {};
  const digest: unknown = info.enrichment;
  const notes: string[] = [];
  if (typeof info.error === 'string') notes.push(`failed: ${info.error}${info.timedOut ? ' (timed out)' : ''}`);
  if (Array.isArray(info.violations)) notes.push(`discarded, not additions: ${info.violations.join(', ')}`);
  if (Array.isArray(info.bounded)) notes.push(`bounded: ${info.bounded.join('; ')}`);
  let body: HTMLElement;
  if (!isDigest(digest)) body = h('p', { class: 'muted', 'data-enrichment': 'none' }, 'added nothing');
  else {
    try {
      body = additionView(digest, (await getJson<{ payload: unknown }>(`/v1/payloads/${encodeURIComponent(digest)}`)).payload);
    } catch (e) {
      body = await missing(digest, seq, e);
    }
  }
  return h('div', { class: 'enrichment', 'data-enricher': String(r.interceptor) },
    h('div', {}, h('b', {}, `enrichment by ${String(r.interceptor)}`), ` ${factsLine(info)}`),
    isDigest(digest) ? h('div', { class: 'muted small' }, `digest ${digest}`) : null,
    ...notes.map((n) => h('div', { class: 'warn small' }, n)),
    body);
}
