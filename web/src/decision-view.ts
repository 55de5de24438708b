// One decision opened: the chain's steps in order with their messages, the input and the
// authorized intent side by side with the changed paths marked, the execution that reports
// it ran (with its drift paths) when one links to it, the receipt, and a replay of it alone.
import { diffJson } from '../../src/audit/diff.js';
import { getJson } from './api.js';
import { h, pretty, type Child } from './dom.js';
import { renderReceiptPanel } from './receipt-panel.js';
import { renderReplayResult, replayRange } from './replay-panel.js';

type Rec = Record<string, any>;

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
  const d: Rec = entry.decision ?? {};
  const abortedBy: string | undefined = d.abortedAt?.interceptor;
  const parts: Child[] = [
    h('h2', {}, `#${entry.seq} ${entry.type} · `, h('span', { class: d.effect === 'deny' ? 'bad' : 'good', id: 'effect' }, d.effect ?? entry.type)),
    h('p', {}, `${entry.time} · principal ${entry.principal ?? '—'} · ${entry.event ?? ''} ${entry.phase ?? ''} · session ${entry.session ?? '—'}`),
    abortedBy ? h('p', { class: 'bad' }, `denied by ${abortedBy}: ${d.abortedAt.reason ?? ''}`) : null,
  ];
  if (entry.type === 'decision') {
    parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Chain'), h('ol', { class: 'steps', id: 'steps' }, ...(d.results ?? []).map((r: Rec, i: number) => stepOf(r, i, abortedBy)))));
    const [input, intent] = await Promise.all([payloadOf(entry.input), payloadOf(entry.intent)]);
    const changed = input.ok && intent.ok ? diffJson(input.value, intent.value) : [];
    parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Input and authorized intent'), h('div', { class: 'sides' }, side('input', input, []), side('authorized intent', intent, changed))));
    // The list row of this decision carries the seq of the execution that reports it ran (server-side link).
    const row = (await getJson<{ rows: Rec[] }>(`/v1/entries?type=decision&from=${seq}&limit=1`).catch(() => ({ rows: [] as Rec[] }))).rows[0];
    if (row?.seq === seq && typeof row.link === 'number') parts.push(await renderExecution(row.link));
  } else if (entry.type === 'execution') {
    parts.push(executionBody(entry));
  } else {
    parts.push(h('pre', {}, pretty(entry)));
  }
  parts.push(renderReceiptPanel(receipt));
  const out = h('div', { id: 'replay-one' });
  if (entry.type === 'decision') parts.push(h('section', { class: 'panel' }, h('h3', {}, 'Replay'), h('button', { id: 'replay-this', onclick: async () => out.replaceChildren(renderReplayResult(await replayRange(seq, seq + 1))) }, 'Replay this decision'), out));
  return h('div', { 'data-seq': String(seq), id: 'decision-view' }, ...parts);
}

function executionBody(e: Rec): HTMLElement {
  const items: Rec[] = e.drift?.items ?? [];
  return h('section', { class: 'panel', id: 'execution' }, h('h3', {}, `Execution #${e.seq}`, e.authorization !== null ? ` of decision #${e.authorization}` : ' (unauthorized)'),
    h('p', {}, `drift: `, h('b', { class: e.drift?.severity === 'critical' ? 'bad' : '' }, e.drift?.severity ?? 'not computed'), ` · flags: ${(e.flags ?? []).join(', ') || 'none'}`),
    items.length ? h('ul', {}, ...items.map((i) => h('li', { class: i.severity === 'critical' ? 'bad' : '' }, h('code', {}, i.path), ` ${i.op} (${i.severity})`))) : null);
}

async function renderExecution(seq: number): Promise<HTMLElement> {
  return executionBody((await getJson<{ entry: Rec }>(`/v1/entries/${seq}`)).entry);
}
