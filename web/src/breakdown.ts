// Who and what the matching decisions were about: per tool and per principal, the top ten with
// their allow and deny counts and a bar, the rest summed. A name narrows the list to it.
import type { Breakdown } from '../../src/http/routes-console.js';
import { h } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
const BAR = 120;

/** A two-part bar (allow, deny) as SVG attributes: no inline style under the console's CSP. */
function bar(allow: number, deny: number, max: number): SVGElement {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('width', String(BAR));
  svg.setAttribute('height', '10');
  const wa = (allow / max) * BAR;
  const wd = (deny / max) * BAR;
  for (const [x, w, cls] of [[0, wa, 'bar-allow'], [wa, wd, 'bar-deny']] as const) {
    if (!w) continue;
    const r = document.createElementNS(NS, 'rect');
    for (const [k, v] of Object.entries({ x, y: 0, width: Math.max(1, w), height: 10, class: cls })) r.setAttribute(k, String(v));
    svg.append(r);
  }
  return svg;
}

export function renderBreakdown(title: string, id: string, b: Breakdown, narrow: (key: string) => void): HTMLElement {
  const max = Math.max(1, ...b.top.map((t) => t.allow + t.deny));
  const rows = b.top.map((t) => h('tr', { 'data-key': t.key ?? '' },
    h('td', { class: 'key' }, t.key === null ? h('span', { class: 'muted' }, '(none)') : h('button', { type: 'button', class: 'link', title: `show only ${t.key}`, onclick: () => narrow(t.key!) }, t.key)),
    h('td', { class: 'num' }, t.allow + t.deny), h('td', { class: 'num good' }, t.allow), h('td', { class: 'num bad' }, t.deny), h('td', {}, bar(t.allow, t.deny, max))));
  if (b.rest) rows.push(h('tr', { class: 'rest' }, h('td', { class: 'muted' }, `${b.rest.keys} more`), h('td', { class: 'num' }, b.rest.allow + b.rest.deny), h('td', { class: 'num good' }, b.rest.allow), h('td', { class: 'num bad' }, b.rest.deny), h('td', {})));
  return h('div', { class: 'breakdown', id },
    h('h4', {}, title),
    rows.length
      ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, title.replace(/^by /, '')), h('th', { class: 'num' }, 'decisions'), h('th', { class: 'num' }, 'allow'), h('th', { class: 'num' }, 'deny'), h('th', {}, ''))), h('tbody', {}, ...rows))
      : h('p', { class: 'muted' }, 'no decisions'));
}
