// A receipt, editable, with a Verify button that runs the core's own verifyReceipt (the module
// `vouch verify` uses) in the browser against the keys fetched once; no server call for the
// check itself. A failure is shown in red with the names of the failing checks.
import { verifiersFor, verifyReceipt, type ReceiptReport } from '../../src/receipt/index.js';
import { h, pretty, replaceChildren } from './dom.js';
import { loadTrust } from './trust.js';

export function renderReceiptPanel(receipt: unknown): HTMLElement {
  const text = h('textarea', { id: 'receipt-json', rows: '10', spellcheck: 'false' });
  text.value = receipt ? pretty(receipt) : '';
  const result = h('div', { id: 'verify-result', 'aria-live': 'polite' });
  const run = async () => {
    replaceChildren(result, 'verifying…');
    try {
      const report = await verifyText(text.value);
      replaceChildren(result, renderReport(report));
    } catch (e) {
      replaceChildren(result, h('div', { class: 'verdict fail' }, `✗ cannot verify: ${(e as Error).message}`));
    }
  };
  return h('section', { class: 'panel' },
    h('h3', {}, 'Receipt'),
    receipt ? null : h('p', { class: 'muted' }, 'no receipt yet: no checkpoint has been signed'),
    text,
    h('div', {}, h('button', { id: 'verify-receipt', onclick: () => void run() }, 'Verify'), ' ', h('span', { class: 'muted' }, 'in this browser, with the service public key')),
    result);
}

export async function verifyText(text: string): Promise<ReceiptReport> {
  const { trust } = await loadTrust();
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    input = text; // the checklist's format step reports it
  }
  const note = typeof input === 'object' && input !== null && typeof (input as { checkpoint?: unknown }).checkpoint === 'string' ? (input as { checkpoint: string }).checkpoint : '';
  return verifyReceipt(input, { verifiers: verifiersFor(trust, note) });
}

export function renderReport(r: ReceiptReport): HTMLElement {
  const failed = r.checks.filter((c) => !c.ok).map((c) => c.name);
  return h('div', { class: `report ${r.ok ? 'pass' : 'fail'}`, 'data-ok': String(r.ok) },
    h('div', { class: `verdict ${r.ok ? 'pass' : 'fail'}` }, r.ok ? `✓ receipt verified${r.verifiedBy.length ? ` (signed by ${[...new Set(r.verifiedBy)].join(', ')})` : ''}` : `✗ receipt FAILED: ${failed.join(', ')}`),
    h('ul', { class: 'checklist' }, ...r.checks.map((c) => h('li', { class: c.ok ? 'good' : 'bad', 'data-check': c.name }, c.ok ? '✓ ' : '✗ ', h('b', {}, c.name), ` ${c.detail}`))));
}
