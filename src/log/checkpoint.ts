// C2SP tlog-checkpoint: the note text `origin\nsize\nbase64(root)\n[extension lines]`, signed as
// a signed note. Portable.
import { fromBase64, toBase64 } from '../canonical/index.js';
import type { PostQuantumAlg } from '../crypto/index.js';
import { InputError, type Issue } from '../errors.js';
import { checkKeyWindows } from './key-window.js';
import { signNote, verifyNote, type NoteSigner, type NoteVerifier, type OpenNoteOptions, type VerifiedSignature } from './note.js';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  extensions: string[];
}

const SIZE_RE = /^(0|[1-9][0-9]*)$/; // "no leading zeroes (unless the tree is empty)"
const BAD_LINE = /[\u0000-\u001f]|\p{Cs}/u;

function fail(message: string, issues: Issue[] = []): never {
  throw new InputError('ERR_VERIFY_CHECKPOINT', `malformed checkpoint: ${message}`, issues);
}

function lineIssue(value: unknown, path: string): Issue | undefined {
  if (typeof value !== 'string' || value.length === 0) return { path, message: 'must be a non-empty line' };
  if (BAD_LINE.test(value)) return { path, message: 'must not contain newlines or control characters' };
  return undefined;
}

export function formatCheckpoint(c: Checkpoint): string {
  const issues: Issue[] = [];
  const push = (i: Issue | undefined): void => void (i && issues.push(i));
  push(lineIssue(c.origin, '/origin'));
  if (!Number.isSafeInteger(c.size) || c.size < 0) issues.push({ path: '/size', message: 'must be a non-negative safe integer' });
  if (!(c.root instanceof Uint8Array) || c.root.length !== 32) issues.push({ path: '/root', message: 'must be 32 bytes' });
  (c.extensions ?? []).forEach((e, i) => push(lineIssue(e, `/extensions/${i}`)));
  if (issues.length > 0) fail(issues.map((x) => `${x.path} ${x.message}`).join('; '), issues);
  return [c.origin, String(c.size), toBase64(c.root), ...(c.extensions ?? [])].join('\n') + '\n';
}

/** Parses checkpoint note text (the part before the blank line) strictly. */
export function parseCheckpoint(text: string): Checkpoint {
  if (typeof text !== 'string' || text.length > 1 << 16) fail('must be a string of at most 65536 characters');
  if (!text.endsWith('\n')) fail('does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) fail(`needs origin, size and root lines, got ${lines.length} line(s)`);
  const [origin, sizeText, rootText, ...extensions] = lines;
  const issues: Issue[] = [];
  const push = (i: Issue | undefined): void => void (i && issues.push(i));
  push(lineIssue(origin, '/origin'));
  let size = -1;
  if (!SIZE_RE.test(sizeText)) issues.push({ path: '/size', message: 'must be decimal without leading zeros' });
  else if (!Number.isSafeInteger((size = Number(sizeText)))) issues.push({ path: '/size', message: 'larger than 2^53 - 1' });
  let root: Uint8Array | undefined;
  try {
    root = fromBase64(rootText);
    if (root.length !== 32) issues.push({ path: '/root', message: `must be 32 bytes, got ${root.length}` });
  } catch {
    issues.push({ path: '/root', message: 'must be standard padded base64' });
  }
  extensions.forEach((e, i) => push(lineIssue(e, `/extensions/${i}`)));
  if (issues.length > 0 || !root) fail(issues.map((x) => `${x.path} ${x.message}`).join('; '), issues);
  return { origin, size, root, extensions };
}

export async function signCheckpoint(c: Checkpoint, signers: NoteSigner[]): Promise<string> {
  return signNote(formatCheckpoint(c), signers);
}

export interface OpenedCheckpoint {
  checkpoint: Checkpoint;
  /** Every signature that verified: key name, algorithm, key id (hex). */
  signatures: VerifiedSignature[];
  /** Accepted on classical signatures alone (only with `classicalOk`). */
  classicalOnly: boolean;
  /** The post-quantum algorithm that met the requirement (log/note.ts). */
  postQuantum?: PostQuantumAlg;
}

/**
 * Verifies the note under the one rule of verifyNote (an ML-DSA-44 or ML-DSA-65 signature is required unless
 * `classicalOk`), then parses its text. The key name need not equal the origin (the spec only
 * says SHOULD), so it is not enforced here; callers pin the origin they expect.
 */
export function openSignedCheckpoint(noteText: string, verifiers: NoteVerifier[], opts: OpenNoteOptions = {}): OpenedCheckpoint {
  const opened = verifyNote(noteText, verifiers, opts);
  const checkpoint = parseCheckpoint(opened.text);
  checkKeyWindows(opened.signatures, checkpoint.size); // a key's signature outside its time: key-revoked / key-retired
  return { checkpoint, signatures: opened.signatures, classicalOnly: opened.classicalOnly, ...(opened.postQuantum && { postQuantum: opened.postQuantum }) };
}

/** openSignedCheckpoint, for callers that need only the checkpoint (the same rule applies). */
export function openCheckpoint(noteText: string, verifiers: NoteVerifier[], opts: OpenNoteOptions = {}): Checkpoint {
  return openSignedCheckpoint(noteText, verifiers, opts).checkpoint;
}
