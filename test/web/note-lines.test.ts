// The console's reading of a checkpoint's signature lines (web/src/note-lines.ts), on a note the
// log's three keys really signed plus a witness's cosignature: the ML-DSA-44 line under the log's
// origin is the log's own signature (in the tlog-cosignature 0x06 layout), never called a cosignature.
import { describe, expect, it } from 'vitest';
import { createEd25519Signer, createMldsa44Signer, createMldsaSigner } from '../../src/crypto/index.js';
import { noteSignerFor, signCheckpoint, signNote } from '../../src/log/index.js';
import { lineWhat, readNote } from '../../web/src/note-lines.js';

const ORIGIN = 'vouch.local/default';
const seed = (b: number) => new Uint8Array(32).fill(b);
const AT = 1_790_000_123;

describe('readNote / lineWhat: what each signature line of a checkpoint is', () => {
  it("labels the log's ML-DSA-44 line as the log's signature (ML-DSA-44 (log)), a witness's line as a witness cosignature", async () => {
    const log = [noteSignerFor(ORIGIN, createMldsaSigner(seed(1))), noteSignerFor(ORIGIN, createEd25519Signer(seed(2))), noteSignerFor(ORIGIN, createMldsa44Signer(seed(3)), { nowSeconds: () => AT })];
    const signed = await signCheckpoint({ origin: ORIGIN, size: 7, root: new Uint8Array(32).fill(0xab), extensions: [] }, log);
    // A witness's ML-DSA-44 cosignature: the same layout under another name.
    const witness = await signNote(signed.slice(0, signed.indexOf('\n\n') + 1), [noteSignerFor('w1.example/witness', createMldsa44Signer(seed(4)), { nowSeconds: () => AT + 5 })]);
    const note = signed + witness.slice(witness.indexOf('\n\n') + 2);
    const read = readNote(note);
    expect(read).toMatchObject({ origin: ORIGIN, size: 7 });
    expect(read.lines.map((l) => [l.name, l.alg, l.kind])).toEqual([
      [ORIGIN, 'ML-DSA-65', 'log'],
      [ORIGIN, 'Ed25519', 'log'],
      [ORIGIN, 'ML-DSA-44', 'log-mldsa44'],
      ['w1.example/witness', 'ML-DSA-44', 'witness'],
    ]);
    const what = read.lines.map(lineWhat);
    expect(what[0]).toBe("the log's signature");
    expect(what[2]).toBe(`ML-DSA-44 (log): the log's own post-quantum signature, in the c2sp tlog-cosignature 0x06 format, signed at ${new Date(AT * 1000).toISOString()}`);
    expect(what[2]).not.toMatch(/cosignature at|vouches for nothing/);
    expect(what[3]).toBe(`witness cosignature at ${new Date((AT + 5) * 1000).toISOString()}`);
  });
});
