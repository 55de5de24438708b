// Always visible: the public key fingerprint (key id) the page trusts (offline: the pinned keys), the latest signed
// checkpoint (size and root), and how far the newest witness cosignature is behind it (or that
// no witness is configured: a cut of the log's end then goes unseen), or why they could not be read.
import { describeNoteKeys, describeWitnessLag, type WitnessLag } from '../../src/receipt/index.js';
import { getJson, isOffline } from './api.js';
import { h, replaceChildren } from './dom.js';
import { loadPinned } from './pinned-keys.js';
import { loadTrust } from './trust.js';

export async function refreshStatus(el: HTMLElement): Promise<void> {
  if (isOffline()) {
    const pinned = loadPinned();
    replaceChildren(el, h('span', { class: 'muted' }, 'offline (opened from a file) · '),
      pinned ? h('span', { id: 'key-id', class: 'good' }, `keys pinned: ${pinned.ids.join(', ')}`) : h('span', { id: 'key-id', class: 'warn' }, "no keys pinned: a bundle is checked against its own keys only"));
    return;
  }
  const parts: (HTMLElement | string)[] = [];
  let trust: Awaited<ReturnType<typeof loadTrust>>['trust'] | undefined;
  try {
    const loaded = await loadTrust();
    trust = loaded.trust;
    parts.push(h('span', { id: 'key-id' }, 'key id in the JWKS (kid) ', h('code', {}, loaded.keyIds.join(', '))));
  } catch (e) {
    parts.push(h('span', { class: 'bad' }, `keys unavailable: ${(e as Error).message}`));
  }
  try {
    const cp = await getJson<{ origin: string; size: number; root: string | null; checkpoint?: string | null; witnessed?: (WitnessLag & { witnesses: string[] }) | null }>('/v1/checkpoint');
    parts.push(h('span', { id: 'checkpoint' }, 'log ', h('code', {}, cp.origin), ' checkpoint size ', h('b', { id: 'cp-size' }, cp.size), ' root ', h('code', { title: cp.root ?? '' }, cp.root ? `${cp.root.slice(0, 16)}…` : 'none')));
    // The same keys by the id their checkpoint lines carry (what verifiers print), each with its kid (issue 37).
    const named = trust && cp.checkpoint ? describeNoteKeys(trust.jwks, cp.checkpoint) : [];
    if (named.length) parts.push(h('span', { id: 'key-names' }, 'signed as ', h('code', {}, named.map((n) => `${n.name}+${n.keyId} (${n.alg}, kid ${n.kid})`).join(', '))));
    parts.push(witnessPart(cp.witnessed));
  } catch (e) {
    parts.push(h('span', { class: 'bad' }, `checkpoint unavailable: ${(e as Error).message}`));
  }
  replaceChildren(el, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
}

/** The service's own account of its witnesses (GET /v1/checkpoint `witnessed`); the receipt panel verifies cosignatures itself. */
export function witnessPart(w: (WitnessLag & { witnesses: string[] }) | null | undefined): HTMLElement {
  if (w === undefined) return h('span', { id: 'witnessed', class: 'warn', 'data-behind': '' }, 'no witness configured: a cut of the log\'s end goes unseen');
  if (w === null) return h('span', { id: 'witnessed', class: 'warn', 'data-behind': '' }, 'no witness cosignature yet');
  return h('span', { id: 'witnessed', class: w.behind ? 'warn' : '', 'data-behind': String(w.behind), title: `cosigned by ${w.witnesses.join(', ')}` }, describeWitnessLag(w));
}
