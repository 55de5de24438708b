// A receipt as a person reads it, not as base64: the entry (its exact signed bytes, decoded), the
// leaf hash, the inclusion proof's hashes, the checkpoint's origin, size, root and signature
// lines, and a caller signature's signed request. Decoding only: nothing here is proven; the
// checklist above it says what verified.
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { h, pretty } from './dom.js';
import { lineWhat, readNote } from './note-lines.js';

type Rec = Record<string, unknown>;

function decodeJson(b64: unknown): { ok: true; value: unknown; bytes: number } | { ok: false; why: string } {
  try {
    const bytes = fromBase64(b64 as string);
    return { ok: true, value: JSON.parse(utf8.decode(bytes)), bytes: bytes.length };
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
}

function field(label: string, ...value: (Node | string)[]): HTMLElement {
  return h('div', { class: 'field' }, h('span', { class: 'label' }, label), ' ', ...value);
}

function checkpointPart(note: unknown): HTMLElement {
  if (typeof note !== 'string') return field('checkpoint', h('span', { class: 'bad' }, 'missing'));
  let read;
  try {
    read = readNote(note);
  } catch (e) {
    return field('checkpoint', h('span', { class: 'bad' }, `cannot read: ${(e as Error).message}`));
  }
  return h('div', { id: 'decoded-checkpoint' },
    field('checkpoint', h('code', {}, read.origin), ' size ', h('b', {}, String(read.size)), ' root ', h('code', {}, read.root)),
    h('table', { class: 'note-lines' },
      h('thead', {}, h('tr', {}, ...['signature line', 'key id', 'algorithm', 'what'].map((c) => h('th', {}, c)))),
      h('tbody', {}, ...read.lines.map((l) => h('tr', { 'data-kind': l.kind },
        h('td', {}, l.name), h('td', {}, h('code', {}, l.keyId)), h('td', {}, l.alg),
        h('td', {}, lineWhat(l)))))));
}

export function renderDecodedReceipt(receipt: unknown): HTMLElement {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return h('div', { id: 'receipt-decoded', class: 'muted' }, 'not a receipt object: nothing to decode');
  const r = receipt as Rec;
  const entry = decodeJson(r.entry);
  const proof = Array.isArray(r.proof) ? r.proof : [];
  const caller = typeof r.callerSignature === 'object' && r.callerSignature !== null ? (r.callerSignature as Rec) : undefined;
  const signed = caller ? decodeJson(caller.payload) : undefined;
  return h('div', { id: 'receipt-decoded' },
    h('h4', {}, 'Receipt, decoded'),
    field('entry', `#${String(r.index)}`, entry.ok ? ` · ${entry.bytes} bytes, exactly as signed (base64 in the raw receipt)` : ''),
    entry.ok ? h('pre', { id: 'decoded-entry' }, pretty(entry.value)) : h('p', { class: 'bad' }, `cannot decode the entry: ${entry.why}`),
    field('leaf hash', h('code', {}, String(r.leafHash))),
    h('details', { id: 'decoded-proof' }, h('summary', {}, `inclusion proof: ${proof.length} hash(es), leaf to root`), h('ol', {}, ...proof.map((p) => h('li', {}, h('code', {}, String(p)))))),
    checkpointPart(r.checkpoint),
    caller ? field('caller signature', `${String(caller.alg)} key ${String(caller.keyId)}`) : null,
    signed ? (signed.ok ? h('pre', { id: 'decoded-caller-payload' }, pretty(signed.value)) : h('p', { class: 'bad' }, `cannot decode the signed request: ${signed.why}`)) : null);
}
