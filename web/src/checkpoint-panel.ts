// The newest checkpoint (GET /v1/checkpoint): its size and root, its signature lines with the log's
// own signatures verified here against the service's keys, what the witnesses have cosigned (the
// cosignature lines in the note, and how far the newest cosignature is behind), and the trusted
// timestamp status: the newest RFC 3161 (TSA) stamp the service holds, when time-stamping is configured.
import { describeSignature, verifyNote } from '../../src/log/index.js';
import { verifiersFor, type WitnessLag } from '../../src/receipt/index.js';
import { getJson } from './api.js';
import { h, replaceChildren } from './dom.js';
import { lineWhat, readNote } from './note-lines.js';
import { witnessPart } from './status-bar.js';
import { loadTrust } from './trust.js';

interface CheckpointAnswer {
  origin: string;
  size: number;
  root: string | null;
  checkpoint: string | null;
  witnessed?: (WitnessLag & { witnesses: string[] }) | null;
  /** The newest RFC 3161 stamp (absent: time-stamping off; null: none yet). Said by the service, not verified here. */
  timestamped?: { size: number; checkpointSize: number; behind: number; tsa: string; genTime: string } | null;
}

function signedBy(note: string, trust: Parameters<typeof verifiersFor>[0]): HTMLElement {
  try {
    const opened = verifyNote(note, verifiersFor(trust, note));
    return h('div', { class: 'good', id: 'cp-signed', 'data-ok': 'true' }, `✓ signed by: ${opened.signatures.map(describeSignature).join(', ')}${opened.classicalOnly ? ' (classical signatures only)' : ''}`);
  } catch (e) {
    return h('div', { class: 'bad', id: 'cp-signed', 'data-ok': 'false' }, `✗ the checkpoint does not verify under the service's keys: ${(e as Error).message}`);
  }
}

export async function refreshCheckpointPanel(el: HTMLElement): Promise<void> {
  let cp: CheckpointAnswer;
  try {
    cp = await getJson<CheckpointAnswer>('/v1/checkpoint');
  } catch (e) {
    return replaceChildren(el, h('h3', {}, 'Newest checkpoint'), h('p', { class: 'bad' }, `checkpoint unavailable: ${(e as Error).message}`));
  }
  if (!cp.checkpoint) return replaceChildren(el, h('h3', {}, 'Newest checkpoint'), h('p', { class: 'muted' }, 'none signed yet'));
  const read = readNote(cp.checkpoint);
  const trust = await loadTrust().then((t) => t.trust, () => undefined);
  const cosigs = read.lines.filter((l) => l.kind === 'witness');
  replaceChildren(el,
    h('h3', {}, 'Newest checkpoint'),
    h('div', {}, h('code', {}, read.origin), ' size ', h('b', { id: 'cp-panel-size' }, read.size), ' root ', h('code', { title: read.root }, read.root)),
    trust ? signedBy(cp.checkpoint, trust) : h('div', { class: 'bad', id: 'cp-signed', 'data-ok': 'false' }, "the service's keys could not be read: the checkpoint is not verified here"),
    h('table', { class: 'note-lines', id: 'cp-lines' },
      h('thead', {}, h('tr', {}, ...['signature line', 'key id', 'algorithm', 'what'].map((c) => h('th', {}, c)))),
      h('tbody', {}, ...read.lines.map((l) => h('tr', { 'data-kind': l.kind }, h('td', {}, l.name), h('td', {}, h('code', {}, l.keyId)), h('td', {}, l.alg),
        h('td', {}, lineWhat(l)))))),
    h('div', { id: 'cp-witness' }, h('b', {}, 'witnesses: '), witnessPart(cp.witnessed),
      cp.witnessed ? h('span', { class: 'muted' }, ` · cosigned by ${cp.witnessed.witnesses.join(', ')}`) : null,
      cp.witnessed !== undefined ? h('span', { class: 'muted' }, ` · ${cosigs.length} witness cosignature line(s) on this checkpoint, not verified here: give the witnesses' keys in a receipt or bundle check`) : null),
    tsaLine(cp.timestamped));
  el.setAttribute('data-size', String(read.size));
}

/** The service's account of its RFC 3161 stamps; a receipt's token is verified by `vouch verify --tsa-cert`. */
function tsaLine(t: CheckpointAnswer['timestamped']) {
  const label = h('b', {}, 'trusted timestamp (TSA): ');
  if (t === undefined) return h('div', { id: 'cp-tsa', class: 'muted', 'data-state': 'off' }, label, 'not configured (timestamping in the config file, docs/verifying-time.md); a witness cosignature\'s time is the trusted time by which a checkpoint existed');
  if (t === null) return h('div', { id: 'cp-tsa', class: 'warn', 'data-state': 'none' }, label, 'configured, no token yet (the TSA is down or no checkpoint is due: /metrics vouch_tsa_failures_total)');
  return h('div', { id: 'cp-tsa', class: t.behind ? 'muted' : '', 'data-state': 'stamped', 'data-behind': String(t.behind) }, label,
    `size ${t.size} time-stamped by ${t.tsa} at ${t.genTime}${t.behind ? ` (${t.behind} ${t.behind === 1 ? 'entry' : 'entries'} since, stamped at the configured cadence)` : ''}; not verified here: vouch verify --tsa-cert checks the token offline`);
}
