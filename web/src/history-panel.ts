// Key and policy history: the keys the service publishes (/.well-known/vouch/keys, the ones this
// page verifies with) and every policy activation the log records (`policy` entries: what was put
// in force, when, by whom, pinned or not), newest last, as `vouch policy history` lists them.
import type { ConsoleRow } from '../../src/http/routes-console.js';
import { getJson } from './api.js';
import { h, replaceChildren } from './dom.js';

interface Jwk {
  kid?: string;
  alg?: string;
  kty?: string;
  crv?: string;
}

const short = (d: string | null | undefined) => (d ? `${d.slice(0, 15)}…${d.slice(-6)}` : '—');

export function renderHistoryPanel(): HTMLElement {
  const keys = h('div', { id: 'history-keys' }, 'loading…');
  const policies = h('div', { id: 'history-policies' }, 'loading…');
  const panel = h('section', { class: 'panel', id: 'history' }, h('h3', {}, 'Keys and policy history'), h('h4', {}, 'Signing keys'), keys, h('h4', {}, 'Policy activations'), policies);
  void (async () => {
    try {
      const jwks = await getJson<{ keys: Jwk[] }>('/.well-known/vouch/keys');
      replaceChildren(keys, h('ul', {}, ...jwks.keys.map((k) => h('li', { 'data-kid': k.kid ?? '' }, h('code', {}, k.kid ?? '(no kid)'), ` ${k.alg ?? k.crv ?? k.kty ?? ''}`))));
    } catch (e) {
      replaceChildren(keys, h('span', { class: 'bad' }, `keys unavailable: ${(e as Error).message}`));
    }
    try {
      const page = await getJson<{ total: number; rows: ConsoleRow[] }>('/v1/entries?type=policy&limit=500');
      replaceChildren(policies, page.rows.length
        ? h('table', {}, h('thead', {}, h('tr', {}, ...['seq', 'time (UTC)', 'action', 'by', 'chain', 'policy set', 'pinned'].map((c) => h('th', {}, c)))),
            h('tbody', {}, ...page.rows.map((r, i) => h('tr', { 'data-seq': String(r.seq), class: i === page.rows.length - 1 ? 'in-force' : '' },
              h('td', {}, r.seq), h('td', {}, r.time), h('td', {}, r.policy?.action ?? '—', i === page.rows.length - 1 ? h('b', { class: 'good' }, ' (in force)') : null), h('td', {}, r.policy?.by ?? '—'),
              h('td', { title: r.policy?.chain ?? '' }, h('code', {}, short(r.policy?.chain))), h('td', { title: r.policy?.policySet ?? '' }, h('code', {}, short(r.policy?.policySet))),
              h('td', {}, r.policy?.pinned === null || r.policy?.pinned === undefined ? '—' : r.policy.pinned ? 'yes' : 'no')))))
        : h('p', { class: 'muted' }, 'no policy entry in this log'));
      if (page.total > page.rows.length) policies.append(h('p', { class: 'muted' }, `${page.total - page.rows.length} more: see vouch policy history`));
    } catch (e) {
      replaceChildren(policies, h('span', { class: 'bad' }, `policy history unavailable: ${(e as Error).message}`));
    }
  })();
  return panel;
}
