// The witness policy of `vouch verify --witness VKEY --min-witnesses K`, in the page: cosigner
// vkeys pasted one a line and K, checked with the core's own verifyWitnesses (witness/verify.ts).
// Shared by the receipt and the bundle panel, so both weigh cosignatures as the CLI does.
import { parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { h } from './dom.js';

export interface WitnessInputs {
  /** The textarea and the K input, to place in a panel. */
  element: HTMLElement;
  /** The check of a checkpoint note, or undefined when no witness key is given (throws on a malformed vkey). */
  check(): ((note: string) => { name: 'witnesses'; ok: boolean; detail: string; latest?: string }) | undefined;
}

export function witnessInputs(idPrefix: string): WitnessInputs {
  const vkeys = h('textarea', { id: `${idPrefix}witness-vkeys`, rows: '2', spellcheck: 'false', placeholder: "witness vkeys, one a line (each witness publishes its own): only these witnesses' cosignatures count" });
  const min = h('input', { id: `${idPrefix}min-witnesses`, type: 'number', min: '0', value: '1', class: 'narrow' });
  return {
    element: h('div', { class: 'witness-policy' }, vkeys, ' ', h('label', { class: 'muted' }, 'at least ', min, ' witness(es)')),
    check() {
      const keys = vkeys.value.trim() ? parseCosignerVkeys(vkeys.value) : [];
      if (keys.length === 0) return undefined;
      const k = Number(min.value) || 0;
      return (note: string) => {
        const v = verifyWitnesses(note, keys, k, Math.floor(Date.now() / 1000));
        // `latest`: the verdict then says how far behind the newest cosignature is (verify-report.ts).
        return { name: 'witnesses', ok: v.ok, detail: v.detail, ...(v.latest && { latest: v.latest }) };
      };
    },
  };
}
