// Tamper evidence for receipts: change any single character of any field of a receipt (entry
// bytes, leaf hash, index, each proof hash, the checkpoint text and both signature lines) and
// offline verification fails. Two substitutions per position: a character of the field's own
// alphabet (so only the value changes, not the format), and the low bit flipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatVkey } from '../../src/log/index.js';
import { verifyReceiptFully, type Receipt } from '../../src/receipt/index.js';
import { keys } from '../execution/_log.js';
import { logWithReceipts, memoized } from './_receipts.js';

let receipt: Receipt;
let close: () => Promise<void>;
const trust = { vkeys: memoized(keys.verifiers), jwks: [] };
const valid = (r: unknown) => verifyReceiptFully({ receipt: r, trust }).ok;

beforeAll(async () => {
  const l = await logWithReceipts(5);
  close = l.log.close;
  receipt = await l.receipt(2, 5);
});
afterAll(() => close?.());

const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Same-alphabet substitute (a different character), else a neighbour. */
function substitute(c: string, alphabet?: string): string {
  if (alphabet?.includes(c)) return alphabet[(alphabet.indexOf(c) + 1) % alphabet.length];
  return c === 'a' ? 'b' : 'a';
}
const flipLow = (c: string) => String.fromCharCode(c.charCodeAt(0) ^ 1);

/** Every position substituted; the low-bit flip too where `flipAt` says (all by default). */
function mutations(text: string, alphabet?: string, flipAt: (i: number) => boolean = () => true): [number, string][] {
  const out: [number, string][] = [];
  for (let i = 0; i < text.length; i++) {
    out.push([i, text.slice(0, i) + substitute(text[i], alphabet) + text.slice(i + 1)]);
    if (flipAt(i)) out.push([i, text.slice(0, i) + flipLow(text[i]) + text.slice(i + 1)]);
  }
  return out;
}

function missedIn(field: 'entry' | 'leafHash' | 'checkpoint', alphabet?: string, flipAt?: (i: number) => boolean): string[] {
  const missed: string[] = [];
  for (const [i, changed] of mutations(receipt[field], alphabet, flipAt)) if (valid({ ...receipt, [field]: changed })) missed.push(`${field}[${i}]`);
  return missed;
}

describe('receipt tamper evidence: every changed character is caught', () => {
  it('the untouched receipt verifies, with a non-empty proof and two signature lines', () => {
    expect(verifyReceiptFully({ receipt, trust }).checks.filter((c) => !c.ok)).toEqual([]);
    expect(receipt.proof.length).toBe(3);
    expect(receipt.checkpoint.split('\n\u2014 ').length).toBe(3);
  });

  it('every character of the entry (base64 of the exact bytes)', () => {
    expect(missedIn('entry', B64)).toEqual([]);
  });

  it('every character of the leaf hash, every proof hash, and the index', () => {
    const missed = missedIn('leafHash', HEX);
    receipt.proof.forEach((h, k) => {
      for (const [i, changed] of mutations(h, HEX)) {
        const proof = [...receipt.proof];
        proof[k] = changed;
        if (valid({ ...receipt, proof })) missed.push(`proof[${k}][${i}]`);
      }
    });
    for (const index of [receipt.index - 1, receipt.index + 1, receipt.index ^ 1]) if (valid({ ...receipt, index })) missed.push(`index ${index}`);
    expect(missed).toEqual([]);
    // Dropping, adding or reordering proof hashes is caught too.
    expect(valid({ ...receipt, proof: receipt.proof.slice(1) })).toBe(false);
    expect(valid({ ...receipt, proof: [...receipt.proof, receipt.proof[0]] })).toBe(false);
    expect(valid({ ...receipt, proof: [...receipt.proof].reverse() })).toBe(false);
  });

  it('every character of the checkpoint note: text, key names, key ids and both signatures', () => {
    // Each changed note costs a real ML-DSA verification: the bit flip runs on the text, the head
    // of each signature line (dash, name, key id) and every 17th signature character.
    const note = receipt.checkpoint;
    const heads = [...note.matchAll(/\n\u2014 /g)].map((m) => m.index + 1);
    const flipAt = (i: number) => i < note.indexOf('\n\n') + 2 || heads.some((h) => i >= h && i < h + 24) || i % 17 === 0 || i >= note.length - 8;
    expect(missedIn('checkpoint', B64, flipAt)).toEqual([]);
  }, 180_000);

  it('a wrong key fails; the ML-DSA-65 key alone verifies; the Ed25519 key alone only with classicalOk', () => {
    const other = { vkeys: memoized(keys.verifiers.map((v) => ({ ...v, name: 'other.vouch' }))), jwks: [] };
    expect(verifyReceiptFully({ receipt, trust: other }).ok).toBe(false);
    const onlyMldsa = verifyReceiptFully({ receipt, trust: { vkeys: [trust.vkeys[0]], jwks: [] } });
    expect(onlyMldsa.checks.filter((c) => !c.ok)).toEqual([]);
    expect(onlyMldsa).toMatchObject({ ok: true, classicalOnly: false, signatures: [{ alg: 'ML-DSA-65' }] });
    const onlyEd = verifyReceiptFully({ receipt, trust: { vkeys: [trust.vkeys[1]], jwks: [] } });
    expect(onlyEd.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['checkpoint-signature']);
    const classical = verifyReceiptFully({ receipt, trust: { vkeys: [trust.vkeys[1]], jwks: [] }, classicalOk: true });
    expect(classical).toMatchObject({ ok: true, classicalOnly: true, signatures: [{ alg: 'Ed25519' }] });
    expect(formatVkey(keys.verifiers[0].name, keys.verifiers[0].alg, keys.verifiers[0].publicKey)).toMatch(/^test\.vouch\+/);
  });

  it('--origin: a receipt of another log fails', () => {
    expect(verifyReceiptFully({ receipt, trust, origin: 'test.vouch/acme' }).ok).toBe(true);
    const r = verifyReceiptFully({ receipt, trust, origin: 'test.vouch/globex' });
    expect(r.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['origin']);
  });
});
