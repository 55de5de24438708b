// A newer checkpoint must extend the receipt's: honest growth verifies; a second root signed for
// the same size, or a proof that does not verify, fails and keeps both notes as evidence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCheckpoint } from '../../src/log/index.js';
import { parseNewerCheckpoint, verifyReceiptFully, type Receipt } from '../../src/receipt/index.js';
import { keys, ORIGIN } from '../execution/_log.js';
import { logWithReceipts } from './_receipts.js';
import { stripPostQuantum } from '../security/_forge.js';

let l: Awaited<ReturnType<typeof logWithReceipts>>;
let receipt: Receipt; // entry 1 at the checkpoint of size 3
const trust = { vkeys: keys.verifiers, jwks: [] };
const run = (text: string) => verifyReceiptFully({ receipt, trust, newer: parseNewerCheckpoint(text) });
const failing = (r: ReturnType<typeof run>) => r.checks.filter((c) => !c.ok).map((c) => c.name);

beforeAll(async () => {
  l = await logWithReceipts(6);
  receipt = await l.receipt(1, 3);
});
afterAll(() => l.log.close());

describe('--checkpoint NEWER', () => {
  it('accepts an honest newer checkpoint with its consistency proof', async () => {
    const r = run(JSON.stringify(await l.consistency(3, 6)));
    expect(failing(r)).toEqual([]);
    expect(r.checks.map((c) => c.name)).toContain('consistency');
    expect(r.evidence).toBeUndefined();
  });

  it('accepts the same checkpoint as a bare note', () => {
    const r = run(receipt.checkpoint);
    expect(r.ok).toBe(true);
  });

  it('accepts what GET /v1/checkpoint answers as the note it carries; an empty log\'s answer is a coded input error', () => {
    const r = run(JSON.stringify({ origin: ORIGIN, size: 3, root: 'ab'.repeat(32), checkpoint: receipt.checkpoint }));
    expect(r.ok).toBe(true);
    expect(() => parseNewerCheckpoint(JSON.stringify({ origin: ORIGIN, size: 0, root: null, checkpoint: null }))).toThrow(expect.objectContaining({ code: 'ERR_INPUT', message: expect.stringMatching(/holds no checkpoint/) }));
  });

  it('an empty file (or blank lines) is a coded input error that says so, named as the caller names it', () => {
    for (const text of ['', ' \n\n']) {
      expect(() => parseNewerCheckpoint(text)).toThrow(expect.objectContaining({ code: 'ERR_INPUT', message: expect.stringMatching(/^the newer checkpoint file is empty: fetch it again/) }));
      expect(() => parseNewerCheckpoint(text, 'the checkpoint file cp.note')).toThrow(expect.objectContaining({ message: expect.stringMatching(/^the checkpoint file cp\.note is empty/) }));
    }
  });

  it('a forged checkpoint of the same size with another root: a fork, both notes kept as evidence', async () => {
    const forged = await signCheckpoint({ origin: ORIGIN, size: 3, root: new Uint8Array(32).fill(9), extensions: [] }, keys.signers);
    for (const text of [forged, JSON.stringify({ from: 3, to: 3, proof: [], checkpoint: forged })]) {
      const r = run(text);
      expect(failing(r)).toEqual(['consistency']);
      expect(r.evidence).toEqual({ reason: expect.stringMatching(/two different roots were signed for size 3/), older: receipt.checkpoint, newer: forged });
    }
  });

  it('a newer checkpoint whose proof does not verify (a rewritten log): evidence', async () => {
    const honest = await l.consistency(3, 6);
    const rewritten = await signCheckpoint({ origin: ORIGIN, size: 6, root: new Uint8Array(32).fill(7), extensions: [] }, keys.signers);
    const r = run(JSON.stringify({ ...honest, checkpoint: rewritten }));
    expect(failing(r)).toEqual(['consistency']);
    expect(r.evidence?.newer).toBe(rewritten);
    const badProof = run(JSON.stringify({ ...honest, proof: honest.proof.map((h: string) => h.replace(/^./, (c) => (c === '0' ? '1' : '0'))) }));
    expect(failing(badProof)).toEqual(['consistency']);
    expect(badProof.evidence).toBeDefined();
  });

  it('no evidence from what proves nothing: an unsigned note fails; a proof from another size, a bare note of another size are "not checked", never failed', async () => {
    const other = await signCheckpoint({ origin: ORIGIN, size: 3, root: new Uint8Array(32).fill(9), extensions: [] }, [{ ...keys.signers[0], name: 'intruder' }]);
    const unsigned = run(other);
    expect(failing(unsigned)).toEqual(['newer-checkpoint']);
    expect(unsigned.evidence).toBeUndefined();
    const wrongFrom = run(JSON.stringify(await l.consistency(2, 6)));
    expect(wrongFrom).toMatchObject({ ok: true, truncation: 'not checked', truncationNote: expect.stringMatching(/^give a consistency proof from GET \/v1\/proofs\/consistency\?from=3 \(the proof given is from size 2 to 6/) });
    expect(wrongFrom.evidence).toBeUndefined();
    const bare = run((await l.log.checkpointAt(6))!.note);
    expect(bare).toMatchObject({ ok: true, truncation: 'not checked', truncationNote: expect.stringMatching(/^give a consistency proof from GET \/v1\/proofs\/consistency\?from=3 /) });
    expect(bare.evidence).toBeUndefined();
  });

  it('a smaller checkpoint: bare, not checked; with a proof that it is a prefix, consistent (still not checked) or a fork; one claiming to extend the receipt, a cut', async () => {
    const late = await l.receipt(4, 6);
    const runLate = (text: string) => verifyReceiptFully({ receipt: late, trust, newer: parseNewerCheckpoint(text) });
    const at3 = (await l.log.checkpointAt(3))!.note;
    expect(runLate(at3)).toMatchObject({ ok: true, truncation: 'not checked', truncationNote: expect.stringMatching(/smaller than the receipt's/) });
    const back = await l.consistency(3, 6);
    const prefix = runLate(JSON.stringify({ ...back, checkpoint: at3 }));
    expect(prefix).toMatchObject({ ok: true, truncation: 'not checked', truncationNote: expect.stringMatching(/older than the receipt's/) });
    expect(prefix.checks.find((c) => c.name === 'consistency')).toMatchObject({ ok: true });
    const forged = await signCheckpoint({ origin: ORIGIN, size: 3, root: new Uint8Array(32).fill(9), extensions: [] }, keys.signers);
    const fork = runLate(JSON.stringify({ ...back, checkpoint: forged }));
    expect(failing(fork)).toEqual(['consistency']);
    expect(fork.evidence?.newer).toBe(forged);
    const cut = runLate(JSON.stringify({ from: 6, to: 3, proof: [], checkpoint: at3 }));
    expect(failing(cut)).toEqual(['consistency']);
    expect(cut.checks.find((c) => !c.ok)?.detail).toMatch(/log was cut back/);
  });

  it('the same note rule: a newer checkpoint without its ML-DSA-65 line proves nothing, unless classicalOk; truncation is checked only by a good one', async () => {
    const honest = await l.consistency(3, 6);
    expect(run(JSON.stringify(honest))).toMatchObject({ ok: true, truncation: 'checked' });
    expect(verifyReceiptFully({ receipt, trust })).toMatchObject({ ok: true, truncation: 'not checked' });
    const stripped = { ...honest, checkpoint: stripPostQuantum(honest.checkpoint) };
    const r = run(JSON.stringify(stripped));
    expect(failing(r)).toEqual(['newer-checkpoint']);
    expect(r.truncation).toBe('not checked');
    expect(r.checks.find((c) => c.name === 'newer-checkpoint')!.detail).toMatch(/no valid ML-DSA-65 signature/);
    const weak = verifyReceiptFully({ receipt, trust, newer: parseNewerCheckpoint(JSON.stringify(stripped)), classicalOk: true });
    expect(weak).toMatchObject({ ok: true, truncation: 'checked' });
    expect(weak.checks.find((c) => c.name === 'newer-checkpoint')!.detail).toMatch(/classical signatures only, accepted by --classical-ok/);
  });

  it('rejects a malformed consistency file as input', () => {
    expect(() => parseNewerCheckpoint('{"proof": "x"}')).toThrow(expect.objectContaining({ code: 'ERR_INPUT', issues: [expect.objectContaining({ path: '/checkpoint' }), expect.objectContaining({ path: '/proof' })] }));
    expect(() => parseNewerCheckpoint('{')).toThrow(expect.objectContaining({ code: 'ERR_JSON_PARSE' }));
  });
});
