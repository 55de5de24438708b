// The decisions table: filters (effect, event, principal, time range, worst drift), the count and
// the chart of what matches, and paging through the log by seq. Each row shows phase, target and
// flags (unauthorized, repeated, ...). A row click opens the decision.
import type { ConsoleRow } from '../../src/http/routes-console.js';
import { getJson } from './api.js';
import { renderChart, type ChartData } from './chart.js';
import { byId, h, replaceChildren } from './dom.js';

/** One row of GET /v1/entries: the server's own type (type-only import, erased from the bundle). */
export type Row = ConsoleRow;

interface Page {
  size: number;
  total: number;
  counts: { allow: number; deny: number };
  chart: ChartData;
  rows: Row[];
  next: number | null;
}

/** The table's columns, written into the header by the page (index.html holds an empty row). */
export const COLUMNS = ['seq', 'time (UTC)', 'principal', 'event', 'phase', 'MCP', 'tool / prompt / resource', 'effect', 'decided by', 'drift (worst)', 'flags'];

export function renderHeader(): void {
  replaceChildren(byId('rows-head'), h('tr', {}, ...COLUMNS.map((c) => h('th', {}, c))));
}

const FILTERS = ['effect', 'event', 'principal', 'since', 'until', 'drift', 'type'] as const;

export function filterQuery(): URLSearchParams {
  const q = new URLSearchParams();
  for (const f of FILTERS) {
    const v = (byId<HTMLInputElement>(`f-${f}`).value ?? '').trim();
    if (!v) continue;
    // datetime-local has no zone: read it as UTC, as the log's times are.
    q.set(f, f === 'since' || f === 'until' ? new Date(`${v}Z`).toISOString() : v);
  }
  return q;
}

export async function loadPage(from: number, open: (seq: number) => void, history: number[]): Promise<void> {
  const q = filterQuery();
  q.set('from', String(from));
  q.set('limit', byId<HTMLSelectElement>('f-limit').value);
  const status = byId('list-status');
  status.textContent = 'loading…';
  let page: Page;
  try {
    page = await getJson<Page>(`/v1/entries?${q}`);
  } catch (e) {
    status.textContent = `could not list entries: ${(e as Error).message}`;
    status.className = 'bad';
    return;
  }
  status.className = '';
  status.textContent = '';
  replaceChildren(byId('count'), h('b', { id: 'total' }, page.total), ` matching of ${page.size} entries · `, h('span', { class: 'good' }, `${page.counts.allow} allow`), ' · ', h('span', { class: 'bad' }, `${page.counts.deny} deny`));
  replaceChildren(byId('chart-box'), renderChart(page.chart));
  const body = page.rows.map((r) =>
    h('tr', { 'data-seq': String(r.seq), class: `row ${r.effect ?? ''}`, onclick: () => open(r.seq) },
      h('td', {}, r.seq), h('td', {}, r.time.replace('T', ' ').replace('Z', '')), h('td', {}, r.principal ?? '—'), h('td', {}, r.event ?? r.type),
      h('td', { class: 'phase' }, r.phase ?? '—'),
      // The era the decision was made under; the client as it named itself (claimed) on hover.
      h('td', { class: 'mcp', title: r.mcp?.client ? `client (self-reported): ${r.mcp.client}` : '' }, r.mcp?.version ?? '—'),
      h('td', { class: 'target' }, r.target ?? '—'), h('td', { class: r.effect === 'deny' ? 'bad' : 'good' }, r.effect ?? r.type), h('td', {}, r.decidedBy ?? '—'),
      h('td', { class: `drift ${r.drift === 'critical' ? 'bad' : r.drift === 'suspicious' ? 'warn' : ''}` }, r.drift ?? '—'),
      h('td', { class: 'flags bad' }, r.flags?.join(', ') ?? '')));
  replaceChildren(byId('rows'), ...(body.length ? body : [h('tr', {}, h('td', { colspan: String(COLUMNS.length), class: 'muted' }, 'no entries match'))]));
  const nav = byId('pager');
  replaceChildren(nav,
    history.length ? h('button', { onclick: () => void loadPage(history[history.length - 1], open, history.slice(0, -1)) }, '← previous') : null,
    page.next !== null ? h('button', { id: 'next-page', onclick: () => void loadPage(page.next!, open, [...history, from]) }, 'next →') : null);
}
