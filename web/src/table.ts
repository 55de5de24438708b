// The decisions table, newest first: filters (effect, event, principal, tool, time range, worst
// drift, type), the count, the timeline and the per-tool and per-principal breakdowns of what
// matches, and paging down the log by seq. Live: the newest page is polled (If-None-Match, so an
// idle log costs one size read) and redrawn in place, new rows marked. A row click opens it.
import type { Breakdown, Chart, ConsoleRow } from '../../src/http/routes-console.js';
import { getJsonIfChanged } from './api.js';
import { renderBreakdown } from './breakdown.js';
import { renderTimeline, type Split } from './chart.js';
import { byId, h, replaceChildren } from './dom.js';

/** One row of GET /v1/entries: the server's own type (type-only import, erased from the bundle). */
export type Row = ConsoleRow;

interface Page {
  size: number;
  total: number;
  counts: { allow: number; deny: number };
  chart: Chart;
  breakdown: { tool: Breakdown; principal: Breakdown };
  rows: Row[];
  next: number | null;
}

/** The table's columns, written into the header by the page (index.html holds an empty row). */
export const COLUMNS = ['seq', 'time (UTC)', 'principal', 'event', 'phase', 'MCP', 'tool / prompt / resource', 'effect', 'decided by', 'drift (worst)', 'flags'];

export function renderHeader(): void {
  replaceChildren(byId('rows-head'), h('tr', {}, ...COLUMNS.map((c) => h('th', {}, c))));
}

const FILTERS = ['effect', 'event', 'principal', 'target', 'since', 'until', 'drift', 'type'] as const;

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

function rowOf(r: Row, open: (seq: number) => void, fresh: boolean): HTMLElement {
  return h('tr', { 'data-seq': String(r.seq), class: `row ${r.effect ?? ''}${fresh ? ' new' : ''}`, onclick: () => open(r.seq) },
    h('td', {}, r.seq), h('td', {}, r.time.replace('T', ' ').replace('Z', '')), h('td', { class: 'principal' }, r.principal ?? '—'), h('td', {}, r.event ?? r.type),
    h('td', { class: 'phase' }, r.phase ?? '—'),
    // The era the decision was made under; the client as it named itself (claimed) on hover.
    h('td', { class: 'mcp', title: r.mcp?.client ? `client (self-reported): ${r.mcp.client}` : '' }, r.mcp?.version ?? '—'),
    h('td', { class: 'target' }, r.target ?? '—'), h('td', { class: r.effect === 'deny' ? 'bad' : 'good' }, r.effect ?? r.type), h('td', {}, r.decidedBy ?? '—'),
    h('td', { class: `drift ${r.drift === 'critical' ? 'bad' : r.drift === 'suspicious' ? 'warn' : ''}` }, r.drift ?? '—'),
    h('td', { class: 'flags bad' }, r.flags?.join(', ') ?? ''));
}

/** The list: which page is shown (`from` undefined: the newest), and what live polling compares with. */
export class DecisionList {
  private from: number | undefined;
  /** The `from` of each newer page, to go back up. */
  private newer: (number | undefined)[] = [];
  private page: Page | undefined;
  private etag: string | undefined;
  /** Bumped by every load: an answer to an older request is dropped. */
  private generation = 0;

  constructor(private readonly open: (seq: number) => void) {}

  get onNewest(): boolean {
    return this.from === undefined;
  }

  private url(): string {
    const q = filterQuery();
    q.set('order', 'newest');
    if (this.from !== undefined) q.set('from', String(this.from));
    q.set('limit', byId<HTMLSelectElement>('f-limit').value);
    return `/v1/entries?${q}`;
  }

  /** Load a page (the newest by default), replacing what is shown. */
  async load(from?: number, newer: (number | undefined)[] = []): Promise<void> {
    this.from = from;
    this.newer = newer;
    this.etag = undefined;
    const gen = ++this.generation;
    const status = byId('list-status');
    status.textContent = 'loading…';
    let answer;
    try {
      answer = await getJsonIfChanged<Page>(this.url(), undefined);
    } catch (e) {
      if (gen !== this.generation) return;
      status.textContent = `could not list entries: ${(e as Error).message}`;
      status.className = 'bad';
      return;
    }
    if (gen !== this.generation || !answer) return;
    status.className = '';
    status.textContent = '';
    this.show(answer.json, answer.etag, new Set());
  }

  /** Live: on the newest page, fetch it again if the log grew, and redraw it with the new rows marked. Whether it changed. */
  async poll(): Promise<boolean> {
    if (!this.onNewest || !this.page) return false;
    const gen = this.generation;
    const answer = await getJsonIfChanged<Page>(this.url(), this.etag);
    if (!answer || gen !== this.generation) return false;
    const top = this.page.rows[0]?.seq ?? -1;
    this.show(answer.json, answer.etag, new Set(answer.json.rows.filter((r) => r.seq > top).map((r) => r.seq)));
    return true;
  }

  private show(page: Page, etag: string | undefined, fresh: Set<number>): void {
    this.page = page;
    this.etag = etag;
    replaceChildren(byId('count'), h('b', { id: 'total' }, page.total), ` matching of ${page.size} entries, newest first · `, h('span', { class: 'good' }, `${page.counts.allow} allow`), ' · ', h('span', { class: 'bad' }, `${page.counts.deny} deny`));
    this.drawCharts();
    const body = page.rows.map((r) => rowOf(r, this.open, fresh.has(r.seq)));
    replaceChildren(byId('rows'), ...(body.length ? body : [h('tr', {}, h('td', { colspan: String(COLUMNS.length), class: 'muted' }, 'no entries match'))]));
    replaceChildren(byId('pager'),
      this.newer.length ? h('button', { id: 'newer-page', onclick: () => void this.load(this.newer[this.newer.length - 1], this.newer.slice(0, -1)) }, '← newer') : null,
      page.next !== null ? h('button', { id: 'next-page', onclick: () => void this.load(page.next!, [...this.newer, this.from]) }, 'older →') : null);
  }

  /** The timeline (split as chosen) and the breakdowns of the page shown. */
  drawCharts(): void {
    if (!this.page) return;
    const split = byId<HTMLSelectElement>('chart-split').value as Split;
    replaceChildren(byId('chart-box'), renderTimeline(this.page.chart, split));
    const narrow = (field: 'target' | 'principal') => (key: string) => {
      byId<HTMLInputElement>(`f-${field}`).value = key;
      void this.load();
    };
    replaceChildren(byId('breakdowns'),
      renderBreakdown('by tool', 'by-tool', this.page.breakdown.tool, narrow('target')),
      renderBreakdown('by principal', 'by-principal', this.page.breakdown.principal, narrow('principal')));
  }
}
