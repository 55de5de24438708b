// The timeline of what a filter matches, as plain SVG: decisions per time bucket with a count axis,
// a UTC time axis and the bucket width named, split by effect (allow/deny), by tool or by principal
// (the top few, the rest summed). Every bar says its counts on hover; names are text nodes only.
import type { Chart, Series } from '../../src/http/routes-console.js';
import { h } from './dom.js';

export type Split = 'effect' | 'tool' | 'principal';

const NS = 'http://www.w3.org/2000/svg';
const W = 720;
const H = 190;
const M = { left: 44, right: 8, top: 10, bottom: 40 };

function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A round step (1, 2 or 5 times a power of ten) giving about four ticks up to max. */
export function tickStep(max: number): number {
  const raw = Math.max(1, max) / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw && Number.isInteger(s)) ?? Math.ceil(raw);
}

/** "10 s", "5 min", "1 h", "1 day", "1 week": one bar's width. */
export function durationText(ms: number): string {
  const units: [number, string][] = [[6048e5, 'week'], [864e5, 'day'], [36e5, 'h'], [6e4, 'min'], [1e3, 's']];
  const [u, name] = units.find(([u]) => ms >= u && ms % u === 0) ?? [1, 'ms'];
  const n = ms / u;
  return name === 'day' || name === 'week' ? `${n} ${name}${n === 1 ? '' : 's'}` : `${n} ${name}`;
}

/** A bucket's start in UTC, as precise as the bucket width needs; the first label carries the date. */
function timeLabel(t: number, bucketMs: number, first: boolean): string {
  const iso = new Date(t).toISOString();
  const day = iso.slice(5, 10);
  if (bucketMs >= 864e5) return iso.slice(0, 10);
  const clock = bucketMs < 6e4 ? iso.slice(11, 19) : iso.slice(11, 16);
  return first ? `${day} ${clock}` : clock;
}

interface Stack {
  names: string[];
  classes: string[];
  /** values[bucket][series] */
  values: number[][];
}

const nameOf = (k: string | null) => (k === null ? '(none)' : k);

function stackOf(chart: Chart, split: Split): Stack {
  if (split === 'effect') return { names: ['allow', 'deny'], classes: ['bar-allow', 'bar-deny'], values: chart.buckets.map((b) => [b.allow, b.deny]) };
  const s: Series = chart.by[split];
  const names = [...s.keys.map(nameOf), ...(s.other ? ['(all others)'] : [])];
  return { names, classes: names.map((_, i) => (s.other && i === names.length - 1 ? 'series-other' : `series-${i}`)), values: s.counts };
}

/** The timeline (SVG) and its legend (each series with its total). */
export function renderTimeline(chart: Chart, split: Split): HTMLElement {
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': `decisions over time by ${split}`, id: 'chart', 'data-split': split });
  const n = chart.buckets.length;
  if (n === 0 || !chart.start) {
    svg.append(svgEl('text', { x: M.left, y: 20, class: 'muted' }, 'no decisions match'));
    return h('figure', { id: 'timeline' }, svg);
  }
  const st = stackOf(chart, split);
  const totals = st.values.map((v) => v.reduce((a, b) => a + b, 0));
  const peak = Math.max(1, ...totals);
  const step = tickStep(peak);
  const top = Math.ceil(peak / step) * step;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const y = (v: number) => M.top + ph - (v / top) * ph;
  const bw = pw / n;
  const start = Date.parse(chart.start);

  // Count axis: gridlines and labels at each step.
  for (let v = 0; v <= top; v += step) {
    svg.append(svgEl('line', { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v), class: v ? 'grid' : 'axis-line' }));
    svg.append(svgEl('text', { x: M.left - 4, y: y(v) + 3, class: 'axis', 'text-anchor': 'end' }, String(v)));
  }
  svg.append(svgEl('text', { x: 10, y: M.top + ph / 2, class: 'axis', 'text-anchor': 'middle', transform: `rotate(-90 10 ${M.top + ph / 2})` }, 'decisions'));

  st.values.forEach((vals, i) => {
    const t0 = start + i * chart.bucketMs;
    const g = svgEl('g', { class: 'bar', 'data-bucket': i, 'data-total': totals[i] });
    const parts = vals.map((v, k) => (v ? `${st.names[k]} ${v}` : '')).filter(Boolean).join(', ');
    g.append(svgEl('title', {}, `${new Date(t0).toISOString()} + ${durationText(chart.bucketMs)}: ${totals[i]} decision(s)${parts ? `: ${parts}` : ''}`));
    let acc = 0;
    vals.forEach((v, k) => {
      if (!v) return;
      g.append(svgEl('rect', { x: M.left + i * bw + 1, y: y(acc + v), width: Math.max(1, bw - 2), height: y(acc) - y(acc + v), class: st.classes[k] }));
      acc += v;
    });
    // Counts on the bars themselves while they are wide enough to carry them.
    if (totals[i] && bw >= 14) g.append(svgEl('text', { x: M.left + (i + 0.5) * bw, y: y(acc) - 2, class: 'count', 'text-anchor': 'middle' }, String(totals[i])));
    svg.append(g);
  });

  // Time axis: about six labels at bucket starts, UTC.
  svg.append(svgEl('line', { x1: M.left, x2: M.left, y1: M.top, y2: M.top + ph, class: 'axis-line' }));
  const every = Math.max(1, Math.ceil(n / 6));
  for (let i = 0; i < n; i += every) {
    const x = M.left + i * bw;
    svg.append(svgEl('line', { x1: x, x2: x, y1: M.top + ph, y2: M.top + ph + 4, class: 'axis-line' }));
    svg.append(svgEl('text', { x, y: M.top + ph + 15, class: 'axis tick', 'text-anchor': i ? 'middle' : 'start' }, timeLabel(start + i * chart.bucketMs, chart.bucketMs, i === 0)));
  }
  svg.append(svgEl('text', { x: M.left + pw / 2, y: H - 4, class: 'axis', 'text-anchor': 'middle', id: 'chart-x-title' }, `time (UTC), one bar = ${durationText(chart.bucketMs)}`));

  const sums = st.names.map((_, k) => st.values.reduce((a, v) => a + (v[k] ?? 0), 0));
  const legend = h('ul', { class: 'legend', id: 'chart-legend' }, ...st.names.map((name, k) =>
    h('li', { 'data-series': name }, h('span', { class: `swatch ${st.classes[k]}` }), h('span', { class: 'series-name' }, name), ' ', h('b', {}, sums[k]))));
  return h('figure', { id: 'timeline' }, svg, legend);
}
