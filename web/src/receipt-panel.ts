// A receipt, decoded and verified in the browser: the core's own verifyReceiptFully (what `vouch
// verify` runs, the same note rule and verdict) against the service's keys (offline: the pinned
// ones), shown as the CLI's checklist, in its words. Online it can also fetch the newest checkpoint
// and its consistency proof, as `vouch verify --checkpoint` is given one. Editable: change the
// raw JSON and verify again to see a check fail.
import { describeSignature } from '../../src/log/index.js';
import { checklistTitle, parseNewerCheckpoint, summarizeEntry, truncationNotChecked, verdictOf, verifyReceiptFully, type FullReport } from '../../src/receipt/index.js';
import { getJson, isOffline } from './api.js';
import { h, pretty, replaceChildren } from './dom.js';
import { readNote } from './note-lines.js';
import { renderDecodedReceipt } from './receipt-decoded.js';
import { loadTrust } from './trust.js';
import { witnessInputs, type WitnessInputs } from './witness-policy.js';

interface VerifyOptions {
  classicalOk?: boolean;
  witnesses?: WitnessInputs;
  /** Check against the service's newest checkpoint (truncation: checked). */
  newest?: boolean;
}

/** The receipt panel and its verification, which the decision view runs as it opens. */
export function renderReceiptPanel(receipt: unknown): { element: HTMLElement; verify(): Promise<void> } {
  const offline = isOffline();
  const text = h('textarea', { id: 'receipt-json', rows: '6', spellcheck: 'false', placeholder: 'a receipt (JSON), as GET /v1/entries/SEQ or a decision answer carries it' });
  text.value = receipt ? pretty(receipt) : '';
  const result = h('div', { id: 'verify-result', 'aria-live': 'polite' });
  const decoded = h('div', {});
  const classical = h('input', { id: 'classical-ok', type: 'checkbox' });
  const newest = h('input', { id: 'check-newest', type: 'checkbox' });
  // Witness policy, as `vouch verify --witness VKEY --min-witnesses K`: cosigner vkeys, one a line.
  const witnesses = witnessInputs('');
  let generation = 0;
  const verify = async () => {
    const gen = ++generation;
    replaceChildren(result, 'verifying…');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.value);
    } catch {
      parsed = text.value;
    }
    replaceChildren(decoded, text.value.trim() ? renderDecodedReceipt(parsed) : null);
    try {
      const report = await verifyReceipt(parsed, { classicalOk: !offline && classical.checked, witnesses, newest: !offline && newest.checked });
      if (gen === generation) replaceChildren(result, renderReport(report, offline ? "check it in its log's console" : 'tick “against the newest checkpoint”'));
    } catch (e) {
      if (gen === generation) replaceChildren(result, h('div', { class: 'verdict fail' }, `✗ cannot verify: ${(e as Error).message}`));
    }
  };
  const element = h('section', { class: 'panel', id: 'receipt-panel' },
    h('h3', {}, 'Receipt'),
    receipt || offline ? null : h('p', { class: 'muted' }, 'no receipt yet: no checkpoint has been signed'),
    result,
    h('div', { class: 'verify-options' },
      h('button', { id: 'verify-receipt', onclick: () => void verify() }, 'Verify'), ' ', h('span', { class: 'muted' }, offline ? 'in this browser, with the pinned keys' : "in this browser, with the service's public keys"), ' ',
      offline ? null : h('label', { class: 'muted' }, newest, ' against the newest checkpoint (and its consistency proof) from this service'), ' ',
      offline ? null : h('label', { class: 'muted' }, classical, ' accept classical (Ed25519) signatures alone')),
    witnesses.element,
    decoded,
    h('details', { class: 'raw', open: true }, h('summary', {}, 'raw receipt (JSON): edit it and press Verify to see a check fail'), text));
  return { element, verify };
}

async function verifyReceipt(input: unknown, opts: VerifyOptions): Promise<FullReport> {
  const { trust } = await loadTrust();
  let newer;
  if (opts.newest) {
    // The newest checkpoint and the proof that it extends the receipt's (GET /v1/proofs/consistency).
    const note = (input as { checkpoint?: unknown } | null)?.checkpoint;
    const size = typeof note === 'string' ? readNote(note).size : 0;
    const answer = await getJson<unknown>(`/v1/proofs/consistency?from=${size}`);
    newer = parseNewerCheckpoint(JSON.stringify(answer));
  }
  return verifyReceiptFully({ receipt: input, trust, classicalOk: opts.classicalOk, witnesses: opts.witnesses?.check(), ...(newer && { newer }) });
}

/**
 * The checklist of `vouch verify RECEIPT` (verify-report.ts formatChecklist), line by line in its
 * words: what was checked, what was decided, each check, who signed, truncation; the verdict
 * first, as a banner. `how`: how this page is given a newer checkpoint.
 */
export function renderReport(r: FullReport, how: string): HTMLElement {
  const failed = r.checks.filter((c) => !c.ok).map((c) => c.name);
  return h('div', { class: `report ${r.ok ? 'pass' : 'fail'}`, 'data-ok': String(r.ok), 'data-truncation': r.truncation, 'data-classical-only': String(r.classicalOnly) },
    h('div', { class: `verdict ${r.ok ? 'pass' : 'fail'}` }, r.ok ? `✓ receipt ${verdictOf(r)}` : `✗ receipt FAILED: ${failed.join(', ')} (${verdictOf(r)})`),
    h('div', { class: 'cli' },
      h('div', { class: 'cli-title' }, checklistTitle('receipt', r.entry)),
      // What the entry says was decided: proven only when every check passed.
      r.entry ? h('div', { class: r.ok ? 'what' : 'what bad', id: 'receipt-what' }, summarizeEntry(r.entry).text, r.ok ? '' : '  (NOT PROVEN: see the failed checks)') : null,
      h('ul', { class: 'checklist' }, ...r.checks.map((c) => h('li', { class: c.ok ? 'good' : 'bad', 'data-check': c.name }, c.ok ? '✓ ' : '✗ ', h('b', { class: 'check-name' }, c.name), ` ${c.detail}`))),
      r.evidence ? h('pre', { class: 'bad', id: 'fork-evidence' }, `FORK EVIDENCE: ${r.evidence.reason}\n--- checkpoint in the receipt ---\n${r.evidence.older}--- newer checkpoint ---\n${r.evidence.newer}---`) : null,
      r.ok ? h('div', { class: 'signed-by' }, `signed by: ${r.signatures.map(describeSignature).join(', ')}`) : null,
      r.ok && r.truncation === 'not checked' ? h('div', { class: 'warn', id: 'truncation' }, truncationNotChecked(how)) : null,
      h('div', { class: 'cli-verdict' }, verdictOf(r))));
}
