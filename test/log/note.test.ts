// C2SP signed notes: the spec's examples (fixtures/vectors/c2sp), the unknown/known-key rules,
// strict parsing, ML-DSA-65 notes with byte-flip tamper checks, and vouch's note rule: an
// ML-DSA-65 signature is required; classical (Ed25519) signatures alone only with classicalOk.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toBase64, toHex, utf8 } from '../../src/canonical/index.js';
import {
  createEd25519Signer, createEd25519Verifier, createMldsaSigner, createMldsaVerifier,
} from '../../src/crypto/index.js';
import {
  noteSignerFor, noteVerifierFor, parseNote, signNote, verifyNote, type NoteVerifier, type OpenNoteOptions,
} from '../../src/log/note.js';
import { formatVkey, parseVkey } from '../../src/log/vkey.js';

/** A C2SP example file without our `# source:` first line. */
const vector = (name: string): string =>
  readFileSync(new URL(`../../fixtures/vectors/c2sp/${name}`, import.meta.url), 'utf8').replace(/^# source:[^\n]*\n/, '');

const exampleNote = vector('signed-note-example.note.txt');
const exampleVkey = vector('signed-note-example.vkey.txt');
const VERIFY_NOTE = expect.objectContaining({ code: 'ERR_VERIFY_NOTE' });
/** The C2SP examples are Ed25519 only: classical signatures accepted explicitly. */
const CLASSICAL = { classicalOk: true };

/** Every single-byte change of `note` (XOR mask) must fail to parse, decode or verify. */
function expectEveryFlipRejected(note: string, verifiers: NoteVerifier[], from = 0, mask = 0x01, opts: OpenNoteOptions = {}): number {
  const bytes = utf8.encode(note);
  let n = 0;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes.slice();
    b[i] ^= mask;
    expect(() => verifyNote(utf8.decode(b), verifiers, opts), `byte ${i}`).toThrow();
    n++;
  }
  return n;
}

function edKey(name: string, fill: number) {
  const s = createEd25519Signer(new Uint8Array(32).fill(fill));
  return { signer: noteSignerFor(name, s), verifier: noteVerifierFor(name, createEd25519Verifier(s.publicKey)) };
}

describe('C2SP signed-note examples', () => {
  const foo = parseVkey(exampleVkey);

  it('parses the example vkey (key id 530d903a) and writes it back identically', () => {
    expect(foo.name).toBe('example.com/foo');
    expect(toHex(foo.keyId)).toBe('530d903a');
    expect(foo.alg).toBe('Ed25519');
    expect(formatVkey(foo.name, foo.alg, foo.publicKey)).toBe(exampleVkey.trimEnd());
  });

  it('verifies the example note under the example vkey, only when classical signatures are accepted', () => {
    expect(verifyNote(exampleNote, [foo], CLASSICAL)).toEqual({
      text: 'This is an example message.\n', verifiedBy: ['example.com/foo'], signatures: [{ name: 'example.com/foo', alg: 'Ed25519', keyId: '530d903a' }], classicalOnly: true,
    });
    expect(() => verifyNote(exampleNote, [foo])).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid ML-DSA-65 signature.*--classical-ok/) }));
  });

  it('rejects the example note with any single byte flipped (every byte, two masks)', () => {
    const n = expectEveryFlipRejected(exampleNote, [foo], 0, 0x01, CLASSICAL);
    expectEveryFlipRejected(exampleNote, [foo], 0, 0x80, CLASSICAL);
    expect(n).toBe(utf8.encode(exampleNote).length);
  });

  it('splits the intro note at the LAST blank line (key id 367ba04b)', () => {
    const { text, signatures } = parseNote(vector('signed-note-intro.note.txt'));
    expect(text).toBe('Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n');
    expect(signatures).toHaveLength(1);
    expect(signatures[0].name).toBe('quasimodo.example/salvatore');
    expect(toHex(signatures[0].keyId)).toBe('367ba04b');
    expect(signatures[0].signature).toHaveLength(64);
  });

  it('parses the cosignature example with two signature lines', () => {
    const { signatures } = parseNote(vector('tlog-cosignature-example.txt'));
    expect(signatures.map((s) => s.name)).toEqual(['example.com/behind-the-sofa', 'witness.example.com/w1']);
    expect(signatures[1].signature).toHaveLength(72); // 8-byte timestamp + 64-byte Ed25519 signature
  });
});

describe('verifyNote key rules', () => {
  const a = edKey('a.example/log', 1);
  const b = edKey('b.example/log', 2);

  it('ignores signatures from unknown keys, including a known name with another key id', async () => {
    const note = await signNote('hello\n', [a.signer, b.signer]);
    const sameName = `— a.example/log ${toBase64(new Uint8Array(68).fill(9))}\n`;
    expect(verifyNote(note + sameName, [a.verifier], CLASSICAL).verifiedBy).toEqual(['a.example/log']);
    expect(verifyNote(note, [b.verifier], CLASSICAL).verifiedBy).toEqual(['b.example/log']);
  });

  it('rejects the whole note when a known key does not verify, even if another does', async () => {
    const note = await signNote('hello\n', [a.signer, b.signer]);
    const lines = note.split('\n');
    const forged = toBase64(new Uint8Array([...b.verifier.keyId, ...new Uint8Array(64).fill(5)]));
    const bad = [...lines.slice(0, 3), `— b.example/log ${forged}`, ''].join('\n');
    expect(() => verifyNote(bad, [a.verifier, b.verifier], CLASSICAL)).toThrow(
      expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringContaining('b.example/log+') }),
    );
    expect(verifyNote(bad, [a.verifier], CLASSICAL).verifiedBy).toEqual(['a.example/log']);
  });

  it('rejects a note that no known key signed', async () => {
    const note = await signNote('hello\n', [a.signer]);
    expect(() => verifyNote(note, [b.verifier], CLASSICAL)).toThrow(VERIFY_NOTE);
    expect(() => verifyNote(note, [], CLASSICAL)).toThrow(VERIFY_NOTE);
  });

  it('refuses two verifiers with the same name and key id', async () => {
    const note = await signNote('hello\n', [a.signer]);
    expect(() => verifyNote(note, [a.verifier, a.verifier])).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });
});

describe('parseNote strictness', () => {
  const sig = `— k.example ${toBase64(new Uint8Array(68))}`;
  const bad: [string, string][] = [
    ['no final newline', `text\n\n${sig}`],
    ['no blank line', `text\n${sig}\n`],
    ['no signature after the last blank line', `text\n\n${sig}\n\n`],
    ['hyphen instead of em dash', `text\n\n- k.example ${toBase64(new Uint8Array(68))}\n`],
    ['no space before the signature', `text\n\n— k.example\n`],
    ['plus in the key name', `text\n\n${sig.replace('k.example', 'k+x')}\n`],
    ['two spaces', `text\n\n${sig.replace(' k.example ', ' k.example  ')}\n`],
    ['not base64', `text\n\n— k.example abc!\n`],
    ['non-canonical base64', `text\n\n— k.example AAAAAB==\n`],
    ['signature too short', `text\n\n— k.example ${toBase64(new Uint8Array(4))}\n`],
    ['a stray non-signature line', `text\n\n${sig}\nstray\n`],
    ['CRLF line endings', `text\r\n\r\n${sig}\r\n`],
    ['a control character', `te\u0007xt\n\n${sig}\n`],
  ];
  for (const [what, note] of bad) {
    it(`rejects ${what}`, () => expect(() => parseNote(note)).toThrow(VERIFY_NOTE));
  }

  it('accepts 16 signatures, refuses more than 64 and oversized notes', () => {
    expect(parseNote(`t\n\n${`${sig}\n`.repeat(16)}`).signatures).toHaveLength(16);
    expect(() => parseNote(`t\n\n${`${sig}\n`.repeat(65)}`)).toThrow(expect.objectContaining({ code: 'ERR_TOO_LARGE' }));
    expect(() => parseNote(`${'x'.repeat(1 << 20)}\n\n${sig}\n`)).toThrow(expect.objectContaining({ code: 'ERR_TOO_LARGE' }));
  });

  it('signNote refuses bad text, no signers and duplicate signers', async () => {
    const { signer } = edKey('a.example/log', 1);
    await expect(signNote('no newline', [signer])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(signNote('bell\u0007\n', [signer])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(signNote('ok\n', [])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(signNote('ok\n', [signer, signer])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    expect(() => noteSignerFor('has space', createEd25519Signer(new Uint8Array(32)))).toThrow(
      expect.objectContaining({ code: 'ERR_INPUT' }),
    );
  });

  it('round-trips text that itself contains blank lines and signature-like lines', async () => {
    const { signer, verifier } = edKey('a.example/log', 1);
    const text = `para one\n\n${sig}\n\n`;
    expect(verifyNote(await signNote(text, [signer]), [verifier], CLASSICAL).text).toBe(text);
  });
});

describe('ML-DSA-65 signed notes', () => {
  const mlSigner = createMldsaSigner(new Uint8Array(32).fill(11));
  const name = 'log.example/vouch';
  const noteSigner = noteSignerFor(name, mlSigner);
  const vkey = formatVkey(name, 'ML-DSA-65', mlSigner.publicKey);
  const verifier = parseVkey(vkey);

  it('round-trips sign and verify through a vkey', async () => {
    expect(vkey).toMatch(/^log\.example\/vouch\+[0-9a-f]{8}\+/);
    expect(verifier.keyId).toEqual(noteSigner.keyId);
    const note = await signNote('origin\n1\nroot\n', [noteSigner]);
    expect(verifyNote(note, [verifier])).toEqual({ text: 'origin\n1\nroot\n', verifiedBy: [name], signatures: [{ name, alg: 'ML-DSA-65', keyId: toHex(verifier.keyId) }], classicalOnly: false, postQuantum: 'ML-DSA-65' });
    expect(verifyNote(note, [noteVerifierFor(name, createMldsaVerifier(mlSigner.publicKey))]).verifiedBy).toEqual([name]);
  });

  it('carries an Ed25519 line beside the ML-DSA line; the ML-DSA key verifies alone, the Ed25519 key only with classicalOk', async () => {
    const ed = edKey(name, 12);
    const note = await signNote('two algs\n', [noteSigner, ed.signer]);
    expect(() => verifyNote(note, [ed.verifier])).toThrow(VERIFY_NOTE);
    expect(verifyNote(note, [ed.verifier], CLASSICAL)).toMatchObject({ verifiedBy: [name], classicalOnly: true, signatures: [{ alg: 'Ed25519' }] });
    expect(verifyNote(note, [verifier])).toMatchObject({ verifiedBy: [name], classicalOnly: false, signatures: [{ alg: 'ML-DSA-65' }] });
    const both = verifyNote(note, [verifier, ed.verifier]);
    expect(both.verifiedBy).toEqual([name]);
    expect(both.signatures.map((x) => `${x.alg} ${x.keyId}`)).toEqual([`ML-DSA-65 ${toHex(verifier.keyId)}`, `Ed25519 ${toHex(ed.verifier.keyId)}`]);
    expect(both.classicalOnly).toBe(false);
  });

  it('one rule: with the ML-DSA-65 line removed, trusting both keys fails, whatever the caller forgets to ask', async () => {
    const ed = edKey(name, 12);
    const note = await signNote('stripped\n', [noteSigner, ed.signer]);
    const lines = note.split('\n');
    const stripped = [...lines.slice(0, 2), lines[3], ''].join('\n'); // text, blank, Ed25519 line
    expect(parseNote(stripped).signatures).toHaveLength(1);
    expect(() => verifyNote(stripped, [verifier, ed.verifier])).toThrow(
      expect.objectContaining({ code: 'ERR_VERIFY_NOTE', message: expect.stringContaining(`no valid ML-DSA-65 signature by trusted key ${name}+${toHex(verifier.keyId)}`) }),
    );
    expect(() => verifyNote(stripped, [verifier, ed.verifier], { strict: false })).toThrow(VERIFY_NOTE);
    expect(verifyNote(stripped, [verifier, ed.verifier], CLASSICAL)).toMatchObject({ classicalOnly: true, signatures: [{ alg: 'Ed25519', keyId: toHex(ed.verifier.keyId) }] });
    expect(() => verifyNote(stripped, [verifier, ed.verifier], { strict: true, classicalOk: true })).toThrow(VERIFY_NOTE); // the log's own fsck: every key signs
  });

  it('rejects every single-byte flip of the signature line', async () => {
    const note = await signNote('tamper target\n', [noteSigner]);
    const start = utf8.encode('tamper target\n\n').length;
    expect(expectEveryFlipRejected(note, [verifier], start)).toBeGreaterThan(4400);
  }, 120_000);
});

describe('parseVkey strictness', () => {
  const pk = createEd25519Signer(new Uint8Array(32).fill(1)).publicKey;
  const good = formatVkey('k.example/x', 'Ed25519', pk);
  const [name, id, key] = [good.split('+')[0], good.split('+')[1], good.slice(good.indexOf('+', good.indexOf('+') + 1) + 1)];
  const BAD_KEY = expect.objectContaining({ code: 'ERR_KEY_FORMAT' });

  it('accepts one trailing newline and nothing else around the key', () => {
    expect(parseVkey(`${good}\n`).name).toBe('k.example/x');
    expect(() => parseVkey(` ${good}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`${good}\n\n`)).toThrow(BAD_KEY);
  });

  it('rejects a wrong key id, an unknown type, a wrong key length and a bad name', () => {
    const flippedId = (parseInt(id[0], 16) ^ 1).toString(16) + id.slice(1);
    expect(() => parseVkey(`${name}+${flippedId}+${key}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`${name}+${id.toUpperCase()}+${key}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`${name}+${id}+${toBase64(new Uint8Array([0x02, ...pk]))}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`${name}+${id}+${toBase64(new Uint8Array([0x01, ...pk, 0]))}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`+${id}+${key}`)).toThrow(BAD_KEY);
    expect(() => parseVkey(`${name}+${id}`)).toThrow(BAD_KEY);
    expect(() => formatVkey('k.example/x', 'ML-DSA-65', pk)).toThrow(BAD_KEY);
  });
});
