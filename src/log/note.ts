// C2SP signed notes (c2sp.org/signed-note): text, a blank line, then `— name base64(keyid||sig)`
// lines. Parsing is strict; verification hashes the exact text bytes, never a re-serialization.
// Portable.
import { concatBytes, fromBase64, toBase64, toHex, utf8 } from '../canonical/index.js';
import { isPostQuantumAlg, MLDSA44_SIGNATURE_BYTES, noteKeyId, type PostQuantumAlg, type SignatureAlg, type Signer, type Verifier } from '../crypto/index.js';
import { InputError, VerificationError, type Issue } from '../errors.js';
import { mldsa44CosignedMessage, splitTimestamped, u64 } from './cosigned-message.js';
import type { KeyWindow } from './key-window.js';

/** Upper bounds (the spec asks for a limit and at least 16 signatures; ML-DSA lines are ~4.4 kB). */
export const MAX_NOTE_LENGTH = 1 << 20;
export const MAX_NOTE_SIGNATURES = 64;

export interface NoteVerifier {
  name: string;
  keyId: Uint8Array;
  alg: SignatureAlg;
  publicKey: Uint8Array;
  verify(msg: Uint8Array, sig: Uint8Array): boolean;
  /** The tree sizes this key signs, from a key history (key-window.ts); none: any size. */
  window?: KeyWindow;
  /** The key's JWKS `kid`, when the verifier was made from a JWKS (crypto/key-id.ts jwksKid). */
  kid?: string;
}
export interface NoteSigner {
  name: string;
  keyId: Uint8Array;
  alg: SignatureAlg;
  sign(msg: Uint8Array): Promise<Uint8Array>;
}
export interface NoteSignature {
  name: string;
  keyId: Uint8Array;
  signature: Uint8Array;
}
export interface Note {
  text: string;
  signatures: NoteSignature[];
}

const SIG_PREFIX = '\u2014 '; // em dash, space
// "MUST NOT contain any ASCII control characters (those below U+0020) other than newline";
// a lone surrogate has no UTF-8 encoding, so it cannot be part of a valid note either.
const BAD_CHAR = /[\u0000-\u0009\u000b-\u001f]|\p{Cs}/u;

/** Key names are non-empty and hold no Unicode space and no `+`. */
export function isValidKeyName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && !/[\s+]/u.test(name) && !BAD_CHAR.test(name);
}

function assertKeyName(name: string): void {
  if (!isValidKeyName(name)) {
    throw new InputError('ERR_INPUT', `invalid note key name ${JSON.stringify(name)}: must be non-empty, without spaces or "+"`);
  }
}

/** Seconds since the epoch for a 0x06 line's timestamp: the signing time, never a decision input. */
const wallSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * A note signer. Ed25519 and ML-DSA-65 sign the note text itself; ML-DSA-44 signs as
 * c2sp.org/tlog-cosignature type 0x06 (what tlog-checkpoint asks of a log's ML-DSA-44 key): the
 * timestamped cosigned_message of the checkpoint under `name`, the line body `timestamp || sig`.
 */
export function noteSignerFor(name: string, signer: Signer, opts: { nowSeconds?: () => number } = {}): NoteSigner {
  assertKeyName(name);
  const keyId = noteKeyId(name, signer.alg, signer.publicKey);
  if (signer.alg === 'ML-DSA-44') {
    const now = opts.nowSeconds ?? wallSeconds;
    return {
      name, keyId, alg: signer.alg,
      async sign(m) {
        const timestamp = now();
        return concatBytes(u64(timestamp), await signer.sign(mldsa44CosignedMessage(name, timestamp, utf8.decode(m))));
      },
    };
  }
  return { name, keyId, alg: signer.alg, sign: (m) => signer.sign(m) };
}

export function noteVerifierFor(name: string, verifier: Verifier): NoteVerifier {
  assertKeyName(name);
  const { alg, publicKey } = verifier;
  const keyId = noteKeyId(name, alg, publicKey);
  if (alg === 'ML-DSA-44') {
    const verify = (m: Uint8Array, body: Uint8Array): boolean => {
      const t = splitTimestamped(body, MLDSA44_SIGNATURE_BYTES);
      if (!t) return false;
      let msg: Uint8Array;
      try {
        msg = mldsa44CosignedMessage(name, t.timestamp, utf8.decode(m)); // a note that is no checkpoint has no such message
      } catch {
        return false;
      }
      return verifier.verify(msg, t.signature);
    };
    return { name, keyId, alg, publicKey, verify };
  }
  return { name, keyId, alg, publicKey, verify: (m, s) => verifier.verify(m, s) };
}

function fail(message: string, issues: Issue[] = []): never {
  throw new InputError('ERR_VERIFY_NOTE', `malformed signed note: ${message}`, issues);
}

function parseSignatureLine(line: string, at: string, issues: Issue[]): NoteSignature | undefined {
  if (!line.startsWith(SIG_PREFIX)) return void issues.push({ path: at, message: 'must start with "— " (U+2014, space)' });
  const rest = line.slice(SIG_PREFIX.length);
  const sp = rest.indexOf(' ');
  if (sp < 0) return void issues.push({ path: at, message: 'must be "— <key name> <base64 signature>"' });
  const name = rest.slice(0, sp);
  if (!isValidKeyName(name)) issues.push({ path: `${at}/name`, message: 'key name must be non-empty, without spaces or "+"' });
  let blob: Uint8Array | undefined;
  try {
    blob = fromBase64(rest.slice(sp + 1));
  } catch {
    issues.push({ path: `${at}/signature`, message: 'must be standard padded base64' });
  }
  // 4-byte key id, then at least one byte of signature.
  if (blob && blob.length < 5) issues.push({ path: `${at}/signature`, message: 'shorter than a key id and a signature' });
  if (!blob || blob.length < 5 || !isValidKeyName(name)) return undefined;
  return { name, keyId: blob.slice(0, 4), signature: blob.slice(4) };
}

/** Splits a signed note at its LAST blank line and parses every signature line. */
export function parseNote(note: string): Note {
  if (typeof note !== 'string') throw new InputError('ERR_INPUT', 'a signed note must be a string');
  if (note.length > MAX_NOTE_LENGTH) throw new InputError('ERR_TOO_LARGE', `signed note longer than ${MAX_NOTE_LENGTH} characters`);
  if (BAD_CHAR.test(note)) fail('contains a control character other than newline, or invalid UTF-16');
  if (!note.endsWith('\n')) fail('does not end with a newline');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) fail('no blank line between the text and the signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block.length === 0) fail('no signature lines after the last blank line');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new InputError('ERR_TOO_LARGE', `more than ${MAX_NOTE_SIGNATURES} signatures`);
  const issues: Issue[] = [];
  const signatures: NoteSignature[] = [];
  lines.forEach((line, i) => {
    const sig = parseSignatureLine(line, `/signatures/${i}`, issues);
    if (sig) signatures.push(sig);
  });
  if (issues.length > 0) fail(issues.map((x) => `${x.path}: ${x.message}`).join('; '), issues);
  return { text, signatures };
}

function assertNoteText(text: string): void {
  if (typeof text !== 'string' || text.length > MAX_NOTE_LENGTH) throw new InputError('ERR_INPUT', 'note text must be a string within the size limit');
  if (!text.endsWith('\n')) throw new InputError('ERR_INPUT', 'note text must end with a newline');
  if (BAD_CHAR.test(text)) throw new InputError('ERR_INPUT', 'note text must not contain control characters other than newline');
}

const keyLabel = (name: string, keyId: Uint8Array): string => `${name}+${toHex(keyId)}`;

/** Signs `text` with every signer, in order; one signature line each. */
export async function signNote(text: string, signers: NoteSigner[]): Promise<string> {
  assertNoteText(text);
  if (signers.length === 0) throw new InputError('ERR_INPUT', 'signNote needs at least one signer');
  const seen = new Set<string>();
  for (const s of signers) {
    assertKeyName(s.name);
    const label = keyLabel(s.name, s.keyId);
    if (seen.has(label)) throw new InputError('ERR_INPUT', `signer ${label} given twice`);
    seen.add(label);
  }
  const msg = utf8.encode(text);
  const sigs = await Promise.all(signers.map((s) => s.sign(msg)));
  const lines = signers.map((s, i) => `${SIG_PREFIX}${s.name} ${toBase64(concatBytes(s.keyId, sigs[i]))}\n`);
  return `${text}\n${lines.join('')}`;
}

/** A signature that verified: which key (name, algorithm, key id in hex). */
export interface VerifiedSignature {
  name: string;
  alg: SignatureAlg;
  keyId: string;
  /** The key's time, when the verifier came from a key history. */
  window?: KeyWindow;
  /** The key's JWKS `kid` (another id of the same key, under another name), when the trusted key came from a JWKS. */
  kid?: string;
}
export interface OpenedNote {
  /** The note text exactly as signed. */
  text: string;
  /** Names of the trusted keys whose signatures verified (one each). */
  verifiedBy: string[];
  /** Every signature that verified, in note order: name, algorithm and key id. */
  signatures: VerifiedSignature[];
  /** True when no post-quantum signature verified and `classicalOk` accepted classical ones alone. */
  classicalOnly: boolean;
  /** The post-quantum algorithm that met the requirement: ML-DSA-65 when both verified, absent when classicalOnly. */
  postQuantum?: PostQuantumAlg;
}
export interface OpenNoteOptions {
  /**
   * A log's own fsck, where every key that signs is known: a signature line by a key we do not
   * hold is an alteration, and every given key must have signed.
   */
  strict?: boolean;
  /** Accept a note whose only verified signatures are classical (Ed25519); the result says so. */
  classicalOk?: boolean;
  /**
   * Which post-quantum signatures meet the requirement: `any` (default) ML-DSA-44 or ML-DSA-65;
   * `ML-DSA-65` only the stronger one (a policy demanding category 3, `--require-pq mldsa65`).
   */
  requirePq?: PqRequirement;
}

export type PqRequirement = 'any' | 'ML-DSA-65';

/** The strongest first: a note both signed is reported as ML-DSA-65. */
export const POST_QUANTUM_ALGS: readonly PostQuantumAlg[] = ['ML-DSA-65', 'ML-DSA-44'];
/** The stronger post-quantum algorithm, every log's first key. */
export const POST_QUANTUM_ALG: PostQuantumAlg = 'ML-DSA-65';

/** The algorithms that satisfy a requirement, strongest first. */
export function pqAlgsFor(req: PqRequirement = 'any'): readonly PostQuantumAlg[] {
  return req === 'ML-DSA-65' ? ['ML-DSA-65'] : POST_QUANTUM_ALGS;
}

/** `--require-pq` text: "any" (ML-DSA-44 or ML-DSA-65) or "mldsa65" (ML-DSA-65 only). Throws ERR_USAGE-like InputError otherwise. */
export function parsePqRequirement(text: string | undefined): PqRequirement {
  if (text === undefined || text === 'any') return 'any';
  const t = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (t === 'mldsa65') return 'ML-DSA-65';
  throw new InputError('ERR_INPUT', `--require-pq must be "any" (ML-DSA-44 or ML-DSA-65) or "mldsa65" (ML-DSA-65 only), not ${JSON.stringify(text)}`);
}

/**
 * "vouch.local/default (ML-DSA-65 1a2b3c4d, JWKS kid 5e6f7a8b)": how verdicts name a verified key,
 * by the id on its signature line and, when the key came from a JWKS, by the kid the JWKS (and the
 * service's ready line and console) give it: two ids of one key under two names (crypto/key-id.ts).
 */
export function describeSignature(s: VerifiedSignature): string {
  return `${s.name} (${s.alg} ${s.keyId}${s.kid !== undefined && s.kid !== s.keyId ? `, JWKS kid ${s.kid}` : ''})`;
}

/**
 * The one note-opening rule every verifier uses (receipts, newer checkpoints, bundles, log fsck,
 * the browser console). Signed-note "Signatures": a line from an unknown key (name and key id
 * not both matching) is ignored; a known key's signature that fails rejects the whole note; at
 * least one known key must verify. Then vouch's rule: post-quantum is not optional. At least one
 * verified signature must be post-quantum (ML-DSA-44 or ML-DSA-65; only ML-DSA-65 with
 * `requirePq: 'ML-DSA-65'`): a note that verifies only under classical keys (say its ML-DSA lines
 * were deleted, or it was made by someone holding only the Ed25519 key) is rejected unless
 * `classicalOk` is given, and then `classicalOnly` says so; `postQuantum` names the one that counted.
 */
export function verifyNote(noteText: string, verifiers: NoteVerifier[], opts: OpenNoteOptions = {}): OpenedNote {
  const known = new Map<string, NoteVerifier>();
  for (const v of verifiers) {
    const label = keyLabel(v.name, v.keyId);
    if (known.has(label)) throw new InputError('ERR_INPUT', `two verifier keys are both ${label}; key name and id must identify one key`);
    known.set(label, v);
  }
  const { text, signatures } = parseNote(noteText);
  const msg = utf8.encode(text);
  const verifiedBy: string[] = [];
  const verified: VerifiedSignature[] = [];
  for (const sig of signatures) {
    const label = keyLabel(sig.name, sig.keyId);
    const v = known.get(label);
    if (!v) {
      if (opts.strict) throw new VerificationError('ERR_VERIFY_NOTE', `signature line by ${label}, which is not one of this log's keys: the note was altered, or these are another log's keys`);
      continue;
    }
    if (!v.verify(msg, sig.signature)) {
      throw new VerificationError('ERR_VERIFY_NOTE', `signature by known key ${label} does not verify; note rejected`);
    }
    if (!verifiedBy.includes(v.name)) verifiedBy.push(v.name);
    if (!verified.some((x) => x.keyId === toHex(v.keyId) && x.name === v.name)) verified.push({ name: v.name, alg: v.alg, keyId: toHex(v.keyId), ...(v.window ? { window: v.window } : {}), ...(v.kid !== undefined ? { kid: v.kid } : {}) });
  }
  if (opts.strict) {
    // Every key of the log signs every checkpoint: a missing line (say, the ML-DSA-65 one deleted,
    // leaving only Ed25519) is an alteration, not a weaker note.
    const signed = new Set(signatures.map((s) => keyLabel(s.name, s.keyId)));
    const missing = [...known.keys()].filter((label) => !signed.has(label));
    if (missing.length) throw new VerificationError('ERR_VERIFY_NOTE', `no signature line by ${missing.map((l) => `${l} (${known.get(l)!.alg})`).join(', ')}: every key of this log signs every checkpoint`);
  }
  if (verified.length === 0) {
    const seen = signatures.map((s) => keyLabel(s.name, s.keyId)).join(', ');
    const trusted = [...known.keys()].join(', ') || 'none';
    throw new VerificationError('ERR_VERIFY_NOTE', `no signature from a trusted key (signed by: ${seen}; trusted: ${trusted})`);
  }
  // ML-DSA-44 (tlog-cosignature 0x06) signs a checkpoint's origin, size and root, never its
  // extension lines: over a text with more, it vouches for less than the note says, so it counts
  // as post-quantum only for a text of exactly those three lines (vouch's checkpoints have no others).
  const uncovered = text.split('\n').length !== 4;
  const accepted = pqAlgsFor(opts.requirePq).filter((alg) => alg !== 'ML-DSA-44' || !uncovered);
  const postQuantum = accepted.find((alg) => verified.some((s) => s.alg === alg));
  const classicalOnly = postQuantum === undefined;
  if (classicalOnly && !opts.classicalOk) {
    const byAlg = (alg: PostQuantumAlg) => {
      const keys = [...known.values()].filter((v) => v.alg === alg).map((v) => keyLabel(v.name, v.keyId));
      return keys.length ? ` by trusted key ${keys.join(', ')}` : ` (no ${alg} key is trusted)`;
    };
    const want = opts.requirePq === 'ML-DSA-65' ? `ML-DSA-65 signature${byAlg('ML-DSA-65')}` : `ML-DSA-65 signature${byAlg('ML-DSA-65')} or ML-DSA-44 signature${byAlg('ML-DSA-44')}`;
    const weaker = verified.some((s) => isPostQuantumAlg(s.alg));
    const partial = uncovered && opts.requirePq !== 'ML-DSA-65' && verified.some((s) => s.alg === 'ML-DSA-44');
    throw new VerificationError(
      'ERR_VERIFY_NOTE',
      `no valid ${want}: the note verifies only under key(s) ${verified.map(describeSignature).join(', ')}, ` +
        (partial
          ? "and ML-DSA-44 signs only a checkpoint's origin, size and root: this note's extension lines rest on classical signatures alone (not accepted without --classical-ok)"
          : weaker ? 'and --require-pq mldsa65 demands ML-DSA-65' : 'classical signatures, which are not accepted without --classical-ok'),
    );
  }
  return { text, verifiedBy, signatures: verified, classicalOnly, ...(postQuantum && { postQuantum }) };
}
