// ML-DSA-44 as a log signature (issue 41 §1): c2sp.org/tlog-checkpoint's timestamped 0x06 line,
// under the log's origin, beside ML-DSA-65 and Ed25519. The bytes are rebuilt here from the spec
// (node:crypto SHA-256, noble ML-DSA-44), and the note rule is played by a forger who holds only
// the classical key: "ML-DSA-44 or ML-DSA-65" is the requirement, ML-DSA-65 on demand.
import { createHash } from 'node:crypto';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64, toHex } from '../../src/canonical/index.js';
import {
  createEd25519Signer, createEd25519Verifier, createMldsa44Signer, createMldsa44Verifier, createMldsaSigner, createMldsaVerifier,
} from '../../src/crypto/index.js';
import { Appender, formatVkey, noteSignerFor, noteVerifierFor, openSignedCheckpoint, parseNote, parseVkey, signCheckpoint, signNote, verifyNote } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ORIGIN = 'example.com/log44';
const seed = (b: number) => new Uint8Array(32).fill(b);
const u64 = (n: number) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; };
const sha = (...parts: Uint8Array[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

const pq65 = createMldsaSigner(seed(1));
const ed = createEd25519Signer(seed(2));
const pq44 = createMldsa44Signer(seed(3));
const signers = (now = () => 1_790_000_000) => [noteSignerFor(ORIGIN, pq65), noteSignerFor(ORIGIN, ed), noteSignerFor(ORIGIN, pq44, { nowSeconds: now })];
const v65 = noteVerifierFor(ORIGIN, createMldsaVerifier(pq65.publicKey));
const vEd = noteVerifierFor(ORIGIN, createEd25519Verifier(ed.publicKey));
const v44 = noteVerifierFor(ORIGIN, createMldsa44Verifier(pq44.publicKey));
const ALL = [v65, vEd, v44];
const ROOT = new Uint8Array(32).fill(0xab);
const sign = (size = 7, root = ROOT, now?: () => number) => signCheckpoint({ origin: ORIGIN, size, root, extensions: [] }, signers(now));
const lineBy = (note: string, prefixByte: number) => note.split('\n').find((l) => l.startsWith(`\u2014 ${ORIGIN} `) && fromBase64(l.split(' ')[2]).length === prefixByte)!;
const LINE44 = 4 + 8 + 2420;

describe('the log signs every checkpoint with ML-DSA-44 (tlog-cosignature type 0x06, timestamped)', () => {
  it('the line is keyid || u64 timestamp || ML-DSA-44 signature over the cosigned_message struct, as the spec builds it', async () => {
    const note = await sign(7, ROOT, () => 1_790_000_123);
    const blob = fromBase64(lineBy(note, LINE44).split(' ')[2]);
    // key ID = SHA-256(name || 0x0A || 0x06 || public key)[:4]
    expect(toHex(blob.subarray(0, 4))).toBe(toHex(sha(Buffer.from(`${ORIGIN}\n`), Uint8Array.of(0x06), pq44.publicKey).subarray(0, 4)));
    expect(Buffer.from(blob.subarray(4, 12)).readBigUInt64BE()).toBe(1_790_000_123n);
    const msg = Buffer.concat([
      Buffer.from('subtree/v1\n\0'), Buffer.from([ORIGIN.length]), Buffer.from(ORIGIN), u64(1_790_000_123),
      Buffer.from([ORIGIN.length]), Buffer.from(ORIGIN), u64(0), u64(7), Buffer.from(ROOT),
    ]);
    expect(ml_dsa44.verify(blob.subarray(12), msg, pq44.publicKey)).toBe(true);
    // The vkey carries type 0x06 and parses back to an ML-DSA-44 note verifier.
    const vkey = formatVkey(ORIGIN, 'ML-DSA-44', pq44.publicKey);
    expect(fromBase64(vkey.slice(vkey.indexOf('+', vkey.indexOf('+') + 1) + 1))[0]).toBe(0x06);
    expect(parseVkey(vkey)).toMatchObject({ name: ORIGIN, alg: 'ML-DSA-44' });
  });

  it('each of the three keys verifies the note; the verdict names the post-quantum algorithm that counted', async () => {
    const note = await sign();
    expect(verifyNote(note, [v44])).toMatchObject({ classicalOnly: false, postQuantum: 'ML-DSA-44' });
    expect(verifyNote(note, [v65])).toMatchObject({ postQuantum: 'ML-DSA-65' });
    expect(verifyNote(note, ALL)).toMatchObject({ postQuantum: 'ML-DSA-65', signatures: [{ alg: 'ML-DSA-65' }, { alg: 'Ed25519' }, { alg: 'ML-DSA-44' }] });
    expect(verifyNote(note, [vEd, v44], { strict: false })).toMatchObject({ postQuantum: 'ML-DSA-44' });
    // A log's own fsck (strict): every key signs; the ML-DSA-44 line is one of them.
    expect(() => verifyNote(note, ALL, { strict: true })).not.toThrow();
  });

  it('--require-pq mldsa65: ML-DSA-44 alone is not enough, and the message says which is demanded', async () => {
    const note = await sign();
    expect(() => verifyNote(note, [vEd, v44], { requirePq: 'ML-DSA-65' })).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid ML-DSA-65 signature.*--require-pq mldsa65/) }));
    expect(verifyNote(note, ALL, { requirePq: 'ML-DSA-65' })).toMatchObject({ postQuantum: 'ML-DSA-65' });
  });
});

describe('a forger holding only the classical (Ed25519) key', () => {
  it('cannot pass a checkpoint signed by Ed25519 alone, whichever post-quantum key the verifier trusts', async () => {
    const forged = await signNote(`${ORIGIN}\n9\n${toBase64(new Uint8Array(32).fill(0xcd))}\n`, [noteSignerFor(ORIGIN, ed)]);
    for (const trusted of [ALL, [vEd, v44], [vEd, v65]]) {
      expect(() => verifyNote(forged, trusted), `trusting ${trusted.map((v) => v.alg)}`).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid ML-DSA-65 signature.* or ML-DSA-44 signature/) }));
    }
  });

  it('cannot carry over the ML-DSA-44 line of a real checkpoint onto its own tree (another root, size or timestamp)', async () => {
    const real = await sign(7);
    const line44 = lineBy(real, LINE44);
    const text = `${ORIGIN}\n7\n${toBase64(new Uint8Array(32).fill(0xcd))}\n`;
    const mine = await signNote(text, [noteSignerFor(ORIGIN, ed)]);
    expect(() => verifyNote(`${mine}${line44}\n`, [vEd, v44])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/does not verify/) }));
    // The real note with its timestamp moved: the signature covers the time.
    const blob = fromBase64(line44.split(' ')[2]);
    blob[11] ^= 1;
    const moved = real.replace(line44, `\u2014 ${ORIGIN} ${toBase64(blob)}`);
    expect(() => verifyNote(moved, [vEd, v44])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
  });

  it("cannot substitute an ML-DSA-44 line of its own key under the log's name: an unknown key's line is ignored, so only Ed25519 remains", async () => {
    const own = createMldsa44Signer(seed(9));
    const text = `${ORIGIN}\n9\n${toBase64(new Uint8Array(32).fill(0xcd))}\n`;
    const forged = await signNote(text, [noteSignerFor(ORIGIN, ed), noteSignerFor(ORIGIN, own)]);
    expect(() => verifyNote(forged, [vEd, v44])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid ML-DSA-65 signature.* or ML-DSA-44 signature/) }));
    // And the log's own fsck names the stranger's line as an alteration.
    expect(() => verifyNote(forged, [vEd, v44], { strict: true })).toThrow(/not one of this log's keys/);
  });

  it('cannot reuse a signature made under another key name (the struct commits to the name)', async () => {
    const other = await signCheckpoint({ origin: ORIGIN, size: 7, root: ROOT, extensions: [] }, [noteSignerFor('someone.else', pq44, { nowSeconds: () => 5 })]);
    const body = parseNote(other).signatures[0].signature; // timestamp || signature, made under 'someone.else'
    const relabelled = `${parseNote(other).text}\n\u2014 ${ORIGIN} ${toBase64(Buffer.concat([v44.keyId, body]))}\n`;
    expect(() => verifyNote(relabelled, [v44])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/does not verify/) }));
  });
});

describe('a forger holding only the classical key, against what ML-DSA-44 does not sign', () => {
  it("cannot pass --require-pq with extension lines of its own: ML-DSA-44 signs origin, size and root only, so the text beyond is Ed25519's word alone", async () => {
    const real = await sign(7);
    const text = parseNote(real).text;
    const line44 = lineBy(real, LINE44);
    // The log's tree (origin, size, root) untouched; a line the log never wrote added under it, re-signed with Ed25519; the ML-DSA-65 line dropped.
    const forgedText = `${text}policy: allow-everything\n`;
    const forged = `${await signNote(forgedText, [noteSignerFor(ORIGIN, ed)])}${line44}\n`;
    for (const trusted of [ALL, [vEd, v44]]) {
      expect(() => verifyNote(forged, trusted), `trusting ${trusted.map((v) => v.alg)}`).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/extension lines/) }));
      expect(() => openSignedCheckpoint(forged, trusted), `trusting ${trusted.map((v) => v.alg)}`).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
    }
    // With --classical-ok it opens, and says it rests on classical signatures alone.
    expect(verifyNote(forged, [vEd, v44], { classicalOk: true })).toMatchObject({ classicalOnly: true });
    // A checkpoint with extension lines that ML-DSA-65 signed still passes: only ML-DSA-44 leaves them out.
    const withExt = await signCheckpoint({ origin: ORIGIN, size: 7, root: ROOT, extensions: ['ext line'] }, signers());
    expect(verifyNote(withExt, ALL)).toMatchObject({ postQuantum: 'ML-DSA-65' });
    // And a plain checkpoint, ML-DSA-44 its only post-quantum signature, still passes.
    expect(verifyNote(real, [vEd, v44])).toMatchObject({ postQuantum: 'ML-DSA-44' });
  });

  it('cannot move the ML-DSA-44 line onto the same tree under another origin (the struct commits to the origin)', async () => {
    const real = await sign(7);
    const line44 = lineBy(real, LINE44);
    const otherText = `other.example/log44\n7\n${toBase64(ROOT)}\n`;
    const moved = `${await signNote(otherText, [noteSignerFor(ORIGIN, ed)])}${line44}\n`;
    expect(() => verifyNote(moved, [vEd, v44])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/does not verify/) }));
  });
});

describe('every byte of the ML-DSA-44 line', () => {
  it("flipped (0x01 and 0x80): the log's own strict open refuses each one", async () => {
    const note = await sign();
    const start = note.indexOf(lineBy(note, LINE44));
    const bytes = Buffer.from(note, 'utf8');
    const from = Buffer.byteLength(note.slice(0, start), 'utf8');
    // The ML-DSA-65 and Ed25519 lines are untouched by these flips: their checks are remembered.
    const seen = new Map<string, boolean>();
    const memo = ALL.map((v) => (v.alg === 'ML-DSA-44' ? v : { ...v, verify: (m: Uint8Array, sig: Uint8Array) => { const k = `${v.alg}${Buffer.from(sig).toString('base64')}${Buffer.from(m).toString('base64')}`; if (!seen.has(k)) seen.set(k, v.verify(m, sig)); return seen.get(k)!; } }));
    let flipped = 0;
    for (let i = from; i < bytes.length - 1; i++) {
      for (const mask of [0x01, 0x80]) {
        const b = Buffer.from(bytes);
        b[i] ^= mask;
        expect(() => verifyNote(b.toString('utf8'), memo, { strict: true }), `byte ${i} ^ ${mask}`).toThrow();
        flipped++;
      }
    }
    expect(flipped).toBeGreaterThan(2 * 3000);
  }, 120_000);
});

describe('an appender with the three keys', () => {
  it('signs every checkpoint with all three and opens strictly (every key of the log signed)', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-44-')), 'log.db'));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: signers(() => Math.floor(Date.now() / 1000)) });
    try {
      for (let i = 0; i < 3; i++) await appender.append({ type: 'decision', time: '2026-12-05T12:00:00Z', tenant: 't', principal: `p${i}`, event: 'tools/call', decision: { effect: 'allow', status: 'success' } });
      const cp = store.latestCheckpoint()!;
      expect(parseNote(cp.note).signatures.map((s) => s.signature.length)).toEqual([3309, 64, 8 + 2420]);
      expect(openSignedCheckpoint(cp.note, ALL, { strict: true })).toMatchObject({ postQuantum: 'ML-DSA-65', checkpoint: { size: cp.size } });
    } finally {
      await appender.close();
      store.close();
    }
  });
});
