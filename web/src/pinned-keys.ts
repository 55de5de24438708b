// Key pinning for the page opened from a file (no service to fetch keys from): the auditor pastes
// or drops the log's published keys (the JWKS of /.well-known/vouch/keys, the vkeys of
// /.well-known/vouch/vkeys, or a bundle's keys.json taken from somewhere they trust), the page
// remembers them in localStorage, and every bundle and receipt check then runs against them.
import { noteKeyId, parseJwks, type PublicKeyEntry } from '../../src/crypto/index.js';
import { toHex } from '../../src/canonical/index.js';
import { parseTrust } from '../../src/receipt/index.js';
import { h, replaceChildren } from './dom.js';

export type Trust = ReturnType<typeof parseTrust>;
const STORE = 'vouch.pinned-keys';

export interface Pinned {
  trust: Trust;
  /** How each key is named where it was published: vkeys by name+key id, JWKS keys by kid. */
  ids: string[];
}

/** The published keys in any of the forms vouch publishes them; throws a message naming what was expected. */
export function parsePublishedKeys(text: string): Pinned {
  const t = text.trim();
  if (!t) throw new Error('nothing to pin: paste the published keys');
  let doc: unknown;
  if (t.startsWith('{')) {
    try {
      doc = JSON.parse(t);
    } catch {
      throw new Error('the keys look like JSON but do not parse');
    }
  }
  const d = doc as { vkeys?: unknown; jwks?: unknown } | undefined;
  // A bundle's keys.json: { vkeys: [...], jwks: {keys: [...]} }.
  if (d && Array.isArray(d.vkeys)) {
    const vk = parseTrust(d.vkeys.filter((v): v is string => typeof v === 'string').join('\n'));
    const jwks = d.jwks === undefined ? [] : parseJwks(d.jwks);
    return { trust: { ...vk, jwks }, ids: idsOf(vk).concat(jwks.map(jwkId)) };
  }
  const trust = parseTrust(t);
  return { trust, ids: idsOf(trust) };
}

/**
 * A JWKS key by its kid, and, for each log its key history names (`vouch_logs`), the key id its
 * checkpoints' signature lines carry there (the key name is the log's origin): the id verdicts name.
 */
function jwkId(k: PublicKeyEntry): string {
  const lines = Object.keys(k.logs ?? {}).map((origin) => `${origin}+${toHex(noteKeyId(origin, k.alg, k.publicKey))}`);
  return `${k.alg} kid ${k.kid}${lines.length ? ` = ${lines.join(', ')}` : ''}`;
}

function idsOf(trust: Trust): string[] {
  return [...trust.vkeys.map((v) => `${v.alg} ${v.name}+${toHex(v.keyId)}`), ...trust.jwks.map(jwkId)];
}

/** The pinned keys, or undefined (none pinned, or what was stored no longer parses). */
export function loadPinned(): Pinned | undefined {
  const text = localStorage.getItem(STORE);
  if (!text) return undefined;
  try {
    return parsePublishedKeys(text);
  } catch {
    return undefined;
  }
}

/** The pin field: paste or drop, Pin, Forget; `changed` runs after either. */
export function renderPinPanel(changed: () => void): HTMLElement {
  const text = h('textarea', { id: 'pin-keys', rows: '3', spellcheck: 'false', placeholder: "the log's published keys: its JWKS (/.well-known/vouch/keys), its vkeys, or a keys.json, pasted or dropped here" });
  const status = h('div', { id: 'pin-status', 'aria-live': 'polite' });
  const show = (error?: string) => {
    const p = loadPinned();
    replaceChildren(status,
      error ? h('div', { class: 'bad' }, `✗ not pinned: ${error}`) : null,
      p ? h('div', { class: 'good', 'data-pinned': 'true' }, `✓ keys pinned (remembered in this browser): ${p.ids.join(', ')}`)
        : h('div', { class: 'warn', 'data-pinned': 'false' }, "no keys pinned: a bundle is then checked against its own keys only, which anyone can re-sign with"));
  };
  const pin = () => {
    try {
      parsePublishedKeys(text.value);
    } catch (e) {
      return show((e as Error).message);
    }
    localStorage.setItem(STORE, text.value.trim());
    text.value = '';
    show();
    changed();
  };
  const forget = () => {
    localStorage.removeItem(STORE);
    show();
    changed();
  };
  text.addEventListener('dragover', (e) => e.preventDefault());
  text.addEventListener('drop', (e) => {
    e.preventDefault();
    const f = e.dataTransfer?.files?.[0];
    if (f) void f.text().then((t) => ((text.value = t), pin()));
  });
  show();
  return h('section', { class: 'panel', id: 'pin-panel' },
    h('h3', {}, 'Trusted keys'),
    h('p', { class: 'muted' }, "Get the log's public keys from its operator, from somewhere other than the bundle, and pin them here: then a bundle or receipt verifies only if those keys signed it."),
    text,
    h('div', {}, h('button', { id: 'pin-save', type: 'button', onclick: pin }, 'Pin these keys'), ' ', h('button', { id: 'pin-forget', type: 'button', onclick: forget }, 'Forget the pinned keys')),
    status);
}
