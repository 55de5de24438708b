// One decision opened: what was decided, the receipt's verification as the CLI's checklist (run
// as the view opens, in the browser) with the receipt decoded, the chain's steps in order with
// their messages (each enricher's addition beside its step: enrichment-panel.ts), the input and the
// authorized intent side by side with the changed paths marked, the execution that reports it ran
// (every one, with its drift paths and both values, and its flags with their reasons), and a replay
// of it alone.
import { diffJson } from '../../src/audit/diff.js';
import { driftValues, type DriftValue } from '../../src/execution/drift-values.js';
import type { DriftItem } from '../../src/execution/drift.js';
import { readEntry, readExecutionEntry, type DecisionEntry, type ExecutionEntry } from '../../src/entries/index.js';
import type { Entry } from '../../src/log/index.js';
import { summarizeEntry } from '../../src/receipt/entry-summary.js';
import { getJson } from './api.js';
import { h, pretty, type Child } from './dom.js';
import { isEnricherResult, renderEnrichment } from './enrichment-panel.js';
import { renderReceiptPanel } from './receipt-panel.js';
import { renderReplayResult, replayRange } from './replay-panel.js';

type Rec = Record<string, any>;

/** The entry through its type's reader (entries/): a decision or execution it refuses is shown raw, marked malformed. */
function typed(raw: Rec): { decision?: DecisionEntry; execution?: ExecutionEntry; malformed?: string } {
  try {
    const e = readEntry(raw as Entry);
    return e.type === 'decision' ? { decision: e } : e.type === 'execution' ? { execution: e } : {};
  } catch (err) {
    return { malformed: (err as Error).message };
  }
}

async function payloadOf(ref: unknown): Promise<{ ok: true; value: unknown } | { ok: false; why: string }> {
  const digest = ref && typeof ref === 'object' ? (ref as Rec).digest : undefined;
  if (typeof digest !== 'string') return { ok: false, why: ref === null ? 'none (nothing was authorized)' : 'not recorded' };
  try {
    return { ok: true, value: (await getJson<{ payload: unknown }>(`/v1/payloads/${encodeURIComponent(digest)}`)).payload };
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
}

function stepOf(r: Rec, i: number, abortedBy: string | undefined): HTMLElement {
  const verdict = r.type === 'mutation' ? (r.modified ? 'modified' : 'unchanged') : r.type === 'validation' ? (r.valid ? 'valid' : `invalid (${r.severity ?? 'error'})`) : r.observed ? 'observed' : '';
  const messages: Rec[] = Array.isArray(r.messages) ? r.messages : [];
  return h('li', { class: `step ${r.interceptor === abortedBy ? 'aborted' : ''}` },
    h('b', {}, `${i + 1}. ${r.interceptor}`), ` ${r.type} · ${r.phase ?? ''} · `, h('span', { class: r.valid === false && r.severity !== 'warning' ? 'bad' : r.modified ? 'warn' : '' }, verdict),
    r.interceptor === abortedBy ? h('span', { class: 'bad' }, ' ← decided (deny)') : null,
    messages.length ? h('ul', {}, ...messages.map((m) => h('li', { class: m.severity === 'error' ? 'bad' : 'muted' }, `${m.severity ?? 'info'}: ${m.message}`))) : null,
    r.info ? h('div', { class: 'muted small' }, JSON.stringify(r.info)) : null);
}

function side(title: string, p: { ok: true; value: unknown } | { ok: false; why: string }, changed: string[]): HTMLElement {
  const body = p.ok ? h('pre', {}, pretty(p.value)) : h('p', { class: 'muted' }, p.why);
  return h('div', { class: 'side' }, h('h4', {}, title), body, changed.length ? h('div', { class: 'changed' }, 'changed: ', ...changed.map((c) => h('code', { class: 'changed-path' }, c || '/'))) : null);
}

export async function renderDecision(seq: number): Promise<HTMLElement> {
  const { entry, receipt } = await getJson<{ entry: Rec; receipt: unknown }>(`/v1/entries/${seq}`);
  const { decision, execution, malformed } = typed(entry);
  const d: Rec = decision?.decision ?? {};
  const abortedBy: string | undefined = d.abortedAt?.interceptor;
  const parts: Child[] = [
    h('h2', {}, `#${entry.seq} ${entry.type} · `, h('span', { class: d.effect === 'deny' ? 'bad' : 'good', id: 'effect' }, d.effect ?? entry.type)),
    // What was decided, in one line, from the signed entry alone (what `vouch verify` prints).
    h('p', { id: 'what' }, h('b', {}, summarizeEntry(entry as never).text)),
    h('p', {}, `${entry.time} · principal ${entry.principal ?? '—'} · ${entry.event ?? ''} ${entry.phase ?? ''} · session ${entry.session ?? '—'}`),
    abortedBy ? h('p', { class: 'bad' }, `denied by ${abortedBy}: ${d.abortedAt.reason ?? ''}`) : null,
    malformed ? h('p', { class: 'bad', id: 'malformed' }, malformed) : null,
  ];
  // The verdict first, as `vouch verify` would print it for this receipt.
  const receiptPanel = renderReceiptPanel(receipt);
  if (receipt) await receiptPanel.verify();
  parts.push(receiptPanel.element);
  if (decision) {
    const results: Rec[] = Array.isArray(d.results) ? d.results : [];
    const steps = results.map((r, i) => stepOf(r, i, abortedBy));
    // Each enricher's step carries what it added (fetched by digest from the payload store).
    await Promise.all(results.map(async (r, i) => isEnricherResult(r) && steps[i].append(await renderEnrichment(r, entry.seq))));
    parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Chain'), h('ol', { class: 'steps', id: 'steps' }, ...steps)));
    const [input, intent] = await Promise.all([payloadOf(decision.input), payloadOf(decision.intent)]);
    const changed = input.ok && intent.ok ? diffJson(input.value, intent.value) : [];
    parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Input and authorized intent'), h('div', { class: 'sides' }, side('input', input, []), side('authorized intent', intent, changed))));
    // The list row of this decision carries the seq of the execution that reports it ran (server-side link).
    const row = (await getJson<{ rows: Rec[] }>(`/v1/entries?type=decision&from=${seq}&limit=1`).catch(() => ({ rows: [] as Rec[] }))).rows[0];
    // Every execution linked to it (the row lists them all: a repeated one shows twice).
    if (row?.seq === seq) for (const x of row.executions ?? (typeof row.link === 'number' ? [row.link] : [])) parts.push(await renderExecution(x));
  } else if (execution) {
    parts.push(await executionBody(execution));
  } else {
    parts.push(h('pre', {}, pretty(entry)));
  }
  const out = h('div', { id: 'replay-one' });
  if (decision) parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Replay'), h('button', { id: 'replay-this', onclick: async () => out.replaceChildren(renderReplayResult(await replayRange(seq, seq + 1))) }, 'Replay this decision'), out));
  return h('div', { 'data-seq': String(seq), id: 'decision-view' }, ...parts);
}

/** Each drift path with its authorized and executed values (digests where a redactor acted on it). */
async function driftRows(e: ExecutionEntry): Promise<DriftValue[]> {
  const items: DriftItem[] = (e.drift as Rec | null)?.items ?? [];
  if (!items.length || typeof e.authorization !== 'number') return items;
  const auth = await getJson<{ entry: Rec }>(`/v1/entries/${e.authorization}`).then((r) => typed(r.entry).decision).catch(() => undefined);
  const [intent, executed, input] = await Promise.all([payloadOf(e.intent), payloadOf(e.executed), auth ? payloadOf(auth.input) : Promise.resolve({ ok: false as const, why: '' })]);
  if (!intent.ok || !executed.ok) return items;
  return driftValues(items, intent.value, executed.value, input.ok ? { value: input.value } : undefined);
}

const shown = (v: unknown, digest: unknown, present: boolean): string => (digest ? `digest ${String(digest).slice(0, 19)}…` : present ? JSON.stringify(v) : '(absent)');

async function executionBody(e: ExecutionEntry): Promise<HTMLElement> {
  const items = await driftRows(e);
  const flags: string[] = e.flags;
  const why: Rec = e.why ?? {};
  const drift = e.drift as Rec | null;
  return h('section', { class: 'panel execution', id: `execution-${e.seq}`, 'data-execution': String(e.seq) },
    h('h3', {}, `Execution #${e.seq}`, e.authorization !== null ? ` of decision #${e.authorization}` : ' (unauthorized)'),
    h('p', {}, `drift: `, h('b', { class: drift?.severity === 'critical' ? 'bad' : '' }, drift?.severity ?? 'not computed'), ` · flags: ${flags.join(', ') || 'none'}`),
    flags.length ? h('ul', { class: 'flags' }, ...flags.map((f) => h('li', { class: 'bad', 'data-flag': f }, h('b', {}, f), why[f] ? `: ${why[f]}` : e.claimed?.reason && f === 'unauthorized' ? `: ${e.claimed.reason}` : ''))) : null,
    items.length
      ? h('table', { class: 'drift' }, h('thead', {}, h('tr', {}, h('th', {}, 'path'), h('th', {}, 'change'), h('th', {}, 'severity'), h('th', {}, 'authorized'), h('th', {}, 'executed'))),
          h('tbody', {}, ...items.map((i) => h('tr', { class: i.severity === 'critical' ? 'bad' : '', 'data-path': i.path },
            h('td', {}, h('code', {}, i.path)), h('td', {}, i.op), h('td', {}, i.severity),
            h('td', { class: 'authorized' }, shown(i.authorized, i.authorizedDigest, 'authorized' in i)),
            h('td', { class: 'executed' }, shown(i.executed, i.executedDigest, 'executed' in i)),
          ))))
      : null);
}

async function renderExecution(seq: number): Promise<HTMLElement> {
  const raw = (await getJson<{ entry: Rec }>(`/v1/entries/${seq}`)).entry;
  const { execution, malformed } = typed(raw);
  return execution ? executionBody(execution) : h('section', { class: 'panel execution bad', 'data-execution': String(seq) }, `Execution #${seq}: ${malformed ?? 'not an execution entry'}`);
}
