// C2SP tlog-checkpoint: the spec example, strict parsing, and signed checkpoints (ML-DSA-65 and Ed25519).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toBase64, toHex } from '../../src/canonical/index.js';
import { createEd25519Signer, createMldsaSigner } from '../../src/crypto/index.js';
import {
  formatCheckpoint, openCheckpoint, openSignedCheckpoint, parseCheckpoint, signCheckpoint, type Checkpoint,
} from '../../src/log/checkpoint.js';
import { noteSignerFor, parseNote, signNote } from '../../src/log/note.js';
import { formatVkey, parseVkey } from '../../src/log/vkey.js';

const vector = (name: string): string =>
  readFileSync(new URL(`../../fixtures/vectors/c2sp/${name}`, import.meta.url), 'utf8').replace(/^# source:[^\n]*\n/, '');
const BAD_CHECKPOINT = expect.objectContaining({ code: 'ERR_VERIFY_CHECKPOINT' });
const ROOT = toBase64(new Uint8Array(32).fill(1));

describe('parseCheckpoint', () => {
  it('parses the tlog-checkpoint example and formats it back byte for byte', () => {
    const { text } = parseNote(vector('tlog-checkpoint-example.txt'));
    const c = parseCheckpoint(text);
    expect(c.origin).toBe('example.com/behind-the-sofa');
    expect(c.size).toBe(20852163);
    expect(toBase64(c.root)).toBe('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=');
    expect(c.extensions).toEqual([]);
    expect(formatCheckpoint(c)).toBe(text);
    expect(parseNote(vector('tlog-cosignature-example.txt')).text).toBe(text);
  });

  it('keeps extension lines in order', () => {
    const text = `o\n0\n${ROOT}\next one\next two\n`;
    const c = parseCheckpoint(text);
    expect(c).toMatchObject({ size: 0, extensions: ['ext one', 'ext two'] });
    expect(formatCheckpoint(c)).toBe(text);
  });

  const bad: [string, string][] = [
    ['a leading zero in the size', `o\n020852163\n${ROOT}\n`],
    ['a signed size', `o\n+1\n${ROOT}\n`],
    ['a negative size', `o\n-1\n${ROOT}\n`],
    ['a fractional size', `o\n1.0\n${ROOT}\n`],
    ['a size with a space', `o\n 1\n${ROOT}\n`],
    ['a size above 2^53 - 1', `o\n9007199254740992\n${ROOT}\n`],
    ['a 31-byte root', `o\n1\n${toBase64(new Uint8Array(31))}\n`],
    ['a 33-byte root', `o\n1\n${toBase64(new Uint8Array(33))}\n`],
    ['a root that is not base64', `o\n1\nnot-base64!\n`],
    ['an empty origin', `\n1\n${ROOT}\n`],
    ['a missing root line', `o\n1\n`],
    ['no final newline', `o\n1\n${ROOT}`],
    ['an empty extension line', `o\n1\n${ROOT}\n\n`],
    ['a control character', `o\u0001\n1\n${ROOT}\n`],
  ];
  for (const [what, text] of bad) {
    it(`rejects ${what}`, () => expect(() => parseCheckpoint(text)).toThrow(BAD_CHECKPOINT));
  }

  it('formatCheckpoint lists every bad field', () => {
    try {
      formatCheckpoint({ origin: 'a\nb', size: -1, root: new Uint8Array(31), extensions: [''] });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_VERIFY_CHECKPOINT' });
      expect((e as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['/origin', '/size', '/root', '/extensions/0']);
    }
  });
});

describe('signed checkpoints', () => {
  const origin = 'log.example/tenant-a';
  const ml = createMldsaSigner(new Uint8Array(32).fill(21));
  const ed = createEd25519Signer(new Uint8Array(32).fill(22));
  const signers = [noteSignerFor(origin, ml), noteSignerFor(origin, ed)];
  const mlVerifier = parseVkey(formatVkey(origin, 'ML-DSA-65', ml.publicKey));
  const edVerifier = parseVkey(formatVkey(origin, 'Ed25519', ed.publicKey));
  const cp: Checkpoint = { origin, size: 42, root: new Uint8Array(32).fill(0xab), extensions: [] };

  it('signs with ML-DSA-65 and Ed25519 lines; opens under the ML-DSA-65 key, under Ed25519 alone only with classicalOk', async () => {
    const note = await signCheckpoint(cp, signers);
    expect(parseNote(note).signatures.map((s) => toHex(s.keyId))).toEqual(signers.map((s) => toHex(s.keyId)));
    expect(openCheckpoint(note, [mlVerifier])).toEqual(cp);
    expect(openCheckpoint(note, [mlVerifier, edVerifier])).toEqual(cp);
    expect(() => openCheckpoint(note, [edVerifier])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
    expect(openCheckpoint(note, [edVerifier], { classicalOk: true })).toEqual(cp);
    const opened = openSignedCheckpoint(note, [mlVerifier, edVerifier]);
    expect(opened).toEqual({
      checkpoint: cp,
      classicalOnly: false,
      postQuantum: 'ML-DSA-65',
      signatures: [{ name: origin, alg: 'ML-DSA-65', keyId: toHex(mlVerifier.keyId) }, { name: origin, alg: 'Ed25519', keyId: toHex(edVerifier.keyId) }],
    });
  });

  it('refuses a checkpoint whose ML-DSA-65 line was removed, unless classical signatures are accepted (and then says so)', async () => {
    const note = await signCheckpoint(cp, signers);
    const stripped = note.slice(0, note.lastIndexOf('\n\n') + 2) + note.split('\n').slice(-2).join('\n');
    expect(parseNote(stripped).signatures.map((x) => toHex(x.keyId))).toEqual([toHex(edVerifier.keyId)]);
    expect(() => openCheckpoint(stripped, [mlVerifier, edVerifier])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/ML-DSA-65/) }));
    expect(() => openCheckpoint(stripped, [mlVerifier])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
    expect(openSignedCheckpoint(stripped, [mlVerifier, edVerifier], { classicalOk: true })).toMatchObject({ checkpoint: cp, classicalOnly: true });
  });

  it('refuses a checkpoint under the wrong key, or with a changed size', async () => {
    const note = await signCheckpoint(cp, [signers[0]]);
    const other = parseVkey(formatVkey(origin, 'ML-DSA-65', createMldsaSigner(new Uint8Array(32).fill(23)).publicKey));
    expect(() => openCheckpoint(note, [other])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }));
    expect(() => openCheckpoint(note.replace('\n42\n', '\n43\n'), [mlVerifier])).toThrow(
      expect.objectContaining({ code: 'ERR_VERIFY_NOTE' }),
    );
  });

  it('opens only after verifying, then refuses a signed text that is no checkpoint', async () => {
    const note = await signNote('log.example/tenant-a\n042\n' + toBase64(cp.root) + '\n', [signers[1]]);
    expect(() => openCheckpoint(note, [edVerifier], { classicalOk: true })).toThrow(BAD_CHECKPOINT);
  });
});
