// A receipt, editable, with a Verify button that runs the core's own verifyReceiptFully (what
// `vouch verify` runs, the same note rule and verdict) in the browser against the keys fetched
// once; no server call for the check itself. A failure is shown in red with the failing checks.
import { describeSignature } from '../../src/log/index.js';
import { summarizeEntry, verdictOf, verifyReceiptFully, type FullReport } from '../../src/receipt/index.js';
import { h, pretty, replaceChildren } from './dom.js';
import { loadTrust } from './trust.js';
import { witnessInputs, type WitnessInputs } from './witness-policy.js';

export function renderReceiptPanel(receipt: unknown): HTMLElement {
  const text = h('textarea', { id: 'receipt-json', rows: '10', spellcheck: 'false' });
  text.value = receipt ? pretty(receipt) : '';
  const result = h('div', { id: 'verify-result', 'aria-live': 'polite' });
  const classical = h('input', { id: 'classical-ok', type: 'checkbox' });
  // Witness policy, as `vouch verify --witness VKEY --min-witnesses K`: cosigner vkeys, one a line.
  const witnesses = witnessInputs('');
  const run = async () => {
    replaceChildren(result, 'verifying…');
    try {
      const report = await verifyText(text.value, { classicalOk: classical.checked, witnesses });
      replaceChildren(result, renderReport(report));
    } catch (e) {
      replaceChildren(result, h('div', { class: 'verdict fail' }, `✗ cannot verify: ${(e as Error).message}`));
    }
  };
  return h('section', { class: 'panel' },
    h('h3', {}, 'Receipt'),
    receipt ? null : h('p', { class: 'muted' }, 'no receipt yet: no checkpoint has been signed'),
    text,
    h('div', {},
      h('button', { id: 'verify-receipt', onclick: () => void run() }, 'Verify'), ' ', h('span', { class: 'muted' }, 'in this browser, with the service public key'), ' ',
      h('label', { class: 'muted' }, classical, ' accept classical (Ed25519) signatures alone')),
    witnesses.element,
    result);
}

export async function verifyText(text: string, opts: { classicalOk?: boolean; witnesses?: WitnessInputs } = {}): Promise<FullReport> {
  const { trust } = await loadTrust();
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    input = text; // the checklist's format step reports it
  }
  return verifyReceiptFully({ receipt: input, trust, classicalOk: opts.classicalOk, witnesses: opts.witnesses?.check() });
}

/** The verdict of `vouch verify` (VALID, the algorithms, truncation), and the keys that verified. */
export function renderReport(r: FullReport): HTMLElement {
  const failed = r.checks.filter((c) => !c.ok).map((c) => c.name);
  return h('div', { class: `report ${r.ok ? 'pass' : 'fail'}`, 'data-ok': String(r.ok), 'data-truncation': r.truncation, 'data-classical-only': String(r.classicalOnly) },
    h('div', { class: `verdict ${r.ok ? 'pass' : 'fail'}` }, r.ok ? `✓ receipt ${verdictOf(r)}` : `✗ receipt FAILED: ${failed.join(', ')}`),
    // What the entry says was decided (event, target, principal, time, effect): proven only when valid.
    r.entry ? h('div', { class: r.ok ? 'what' : 'what bad', id: 'receipt-what' }, r.ok ? '' : 'NOT PROVEN: ', summarizeEntry(r.entry).text) : null,
    r.ok ? h('div', { class: 'signed-by' }, `signed by: ${r.signatures.map(describeSignature).join(', ')}`) : null,
    r.ok && r.truncation === 'not checked' ? h('div', { class: 'warn', id: 'truncation' }, 'truncation: not checked (no newer checkpoint: this page cannot prove the log still holds this entry)') : null,
    r.ok && r.classicalOnly ? h('div', { class: 'warn' }, 'classical signatures only: no ML-DSA-65 signature verified') : null,
    h('ul', { class: 'checklist' }, ...r.checks.map((c) => h('li', { class: c.ok ? 'good' : 'bad', 'data-check': c.name }, c.ok ? '✓ ' : '✗ ', h('b', {}, c.name), ` ${c.detail}`))));
}
