// Always visible: the public key fingerprint (key id) the page trusts and the latest signed
// checkpoint (size and root), or why they could not be read.
import { getJson, isOffline } from './api.js';
import { h, replaceChildren } from './dom.js';
import { loadTrust } from './trust.js';

export async function refreshStatus(el: HTMLElement): Promise<void> {
  if (isOffline()) {
    replaceChildren(el, h('span', { class: 'muted' }, 'offline (opened from a file): drop a bundle below; its own keys are used'));
    return;
  }
  const parts: (HTMLElement | string)[] = [];
  try {
    const { keyIds } = await loadTrust();
    parts.push(h('span', { id: 'key-id' }, 'key id ', h('code', {}, keyIds.join(', '))));
  } catch (e) {
    parts.push(h('span', { class: 'bad' }, `keys unavailable: ${(e as Error).message}`));
  }
  try {
    const cp = await getJson<{ origin: string; size: number; root: string | null }>('/v1/checkpoint');
    parts.push(h('span', { id: 'checkpoint' }, 'log ', h('code', {}, cp.origin), ' checkpoint size ', h('b', { id: 'cp-size' }, cp.size), ' root ', h('code', { title: cp.root ?? '' }, cp.root ? `${cp.root.slice(0, 16)}…` : 'none')));
  } catch (e) {
    parts.push(h('span', { class: 'bad' }, `checkpoint unavailable: ${(e as Error).message}`));
  }
  replaceChildren(el, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
}
