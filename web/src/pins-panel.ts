// Tool pins (GET /v1/tools/pins): each pinned upstream tool, and for a tool whose definition
// changed, the pinned and the new definition side by side with the changed paths and both values,
// so an approval is made knowing what changed. Where the log holds only digests, the digests.
// Read-only: approving stays with `vouch tools approve` (or the gateway's POST /v1/tools/approve).
import { diffJson } from '../../src/audit/diff.js';
import type { PinRow } from '../../src/http/routes-console.js';
import { getJson } from './api.js';
import { h, pretty, replaceChildren } from './dom.js';

type Definition = { definition: unknown } | { missing: string } | null;
type Pin = PinRow & { definitions: { pinned: Definition; pending: Definition } };

/** The value at an RFC 6901 pointer, or undefined. */
function at(v: unknown, pointer: string): unknown {
  let cur = v;
  for (const raw of pointer.split('/').slice(1)) {
    const k = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** A word a shell reads as one argument, never as syntax (a tool name is the upstream's text: `<`, `>`, `;`, `$(..)`). */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const shown = (v: unknown) => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));

function diffPart(p: Pin): HTMLElement {
  const a = p.definitions.pinned;
  const b = p.definitions.pending;
  if (!a || !b || !('definition' in a) || !('definition' in b)) {
    const why = [a && 'missing' in a ? `the pinned definition is ${a.missing}` : '', b && 'missing' in b ? `the new definition is ${b.missing}` : ''].filter(Boolean).join('; ');
    return h('p', { class: 'warn', 'data-diff': 'digests-only' }, `${why}: compare the digests above with the upstream's tools/list`);
  }
  const paths = diffJson(a.definition, b.definition);
  return h('div', { class: 'pin-diff', 'data-diff': 'definitions' },
    h('table', { class: 'pin-changes' },
      h('thead', {}, h('tr', {}, h('th', {}, 'changed path'), h('th', {}, 'pinned'), h('th', {}, 'new'))),
      h('tbody', {}, ...paths.map((path) => h('tr', { 'data-path': path },
        h('td', {}, h('code', {}, path || '/')), h('td', { class: 'pinned-value' }, shown(at(a.definition, path))), h('td', { class: 'new-value' }, shown(at(b.definition, path))))))),
    h('div', { class: 'sides' },
      h('div', { class: 'side' }, h('h4', {}, 'pinned definition'), h('pre', { class: 'pinned-def' }, pretty(a.definition))),
      h('div', { class: 'side' }, h('h4', {}, 'new definition (awaiting approval)'), h('pre', { class: 'new-def' }, pretty(b.definition)))));
}

function pinCard(p: Pin): HTMLElement {
  return h('div', { class: `pin ${p.pending ? 'awaiting' : ''}`, 'data-tool': p.tool },
    h('h4', {}, p.tool, ' ', p.pending ? h('span', { class: 'bad' }, 'changed: awaiting approval (hidden from tools/list, calls denied)') : h('span', { class: 'good' }, 'pinned')),
    h('div', {}, 'pinned ', h('code', { class: 'digest' }, p.pinned), h('span', { class: 'muted' }, ` · ${p.pinnedBy.action}${p.pinnedBy.by ? ` by ${p.pinnedBy.by}` : ''} at ${p.pinnedBy.time} (entry #${p.pinnedBy.seq})`)),
    p.pending ? h('div', {}, 'new    ', h('code', { class: 'digest' }, p.pending), h('span', { class: 'muted' }, p.changed ? ` · first seen at ${p.changed.time} (entry #${p.changed.seq})` : '')) : null,
    p.pending ? diffPart(p) : null,
    p.pending ? h('p', { class: 'muted' }, `to approve it: vouch tools approve ${shellWord(p.server)} ${shellWord(p.name)} ${p.pending}`) : null);
}

export async function refreshPinsPanel(el: HTMLElement): Promise<void> {
  let pins: Pin[];
  try {
    pins = (await getJson<{ pins: Pin[] }>('/v1/tools/pins')).pins;
  } catch (e) {
    return replaceChildren(el, h('h3', {}, 'Tool pins'), h('p', { class: 'bad' }, `tool pins unavailable: ${(e as Error).message}`));
  }
  const waiting = pins.filter((p) => p.pending).length;
  replaceChildren(el,
    h('h3', {}, 'Tool pins ', h('span', { class: waiting ? 'bad' : 'muted', id: 'pins-summary' }, `${pins.length} pinned, ${waiting} awaiting approval`)),
    pins.length ? h('div', { id: 'pins' }, ...pins.map(pinCard)) : h('p', { class: 'muted' }, 'no tool pinned in this log: a gateway pins each upstream tool the first time it lists it'));
}
