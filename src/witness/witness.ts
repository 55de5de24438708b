// The witness's answer to one add-checkpoint request (c2sp.org/tlog-witness), every status code
// the spec gives: 400 malformed or old > size, 404 unknown origin, 403 no trusted signature,
// 409 old size is not the one we cosigned last (or same size, other root), 422 bad proof.
// A witness is a verifier: it opens checkpoints by the rule every verifier applies, and more
// (log/open-complete.ts): every key type of the log signs, the ML-DSA-65 one at least. No I/O: the state store, cosigners and clock are arguments. Portable.
import { bytesEqual } from '../canonical/index.js';
import { parseCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { checkExtends } from '../log/consistency.js';
import { EMPTY_ROOT } from '../log/merkle.js';
import { verifyNote, type NoteVerifier } from '../log/note.js';
import { openCompleteCheckpoint } from '../log/open-complete.js';
import type { Cosigner } from './cosignature.js';
import { parseAddCheckpoint, SIZE_CONTENT_TYPE, type AddCheckpointRequest } from './request.js';

export interface WitnessedLog {
  origin: string;
  /**
   * The log's checkpoint keys (its vkeys); signatures by any other key are ignored. A key with a
   * window (its `# key ... from N to M revoked-after R` line) signs only those sizes: a checkpoint
   * a rotated-out or revoked key signed past its time is refused (403), never cosigned.
   */
  verifiers: NoteVerifier[];
  /**
   * The operator accepted classical (Ed25519) signatures alone for this log, explicitly (`vouch
   * witness --classical-ok ORIGIN`): then anyone holding the log's Ed25519 key can get cosignatures.
   * Off, a log configured without an ML-DSA-65 key is refused at start (node-witness.ts).
   */
  classicalOk?: boolean;
}

export interface TreeHead {
  size: number;
  root: Uint8Array;
  /** The checkpoint note cosigned (the log's signature lines as sent), kept so the record can be re-checked. */
  note?: string;
}

export interface WitnessState {
  /** The latest checkpoint cosigned for `origin`, if any. */
  latest(origin: string): TreeHead | undefined;
  /**
   * Check-and-persist in one atomic step (the spec's race: two requests must never roll the
   * record back). `decide` sees the current record and returns the new one, or a refusal.
   */
  update<T>(origin: string, decide: (current: TreeHead | undefined) => { next: TreeHead; result: T } | { refuse: T }): T;
  /** Requests refused although the log's signature was valid: possible evidence of misbehaviour. */
  recordRefusal?(origin: string, status: number, reason: string, body: string): void;
}

export interface WitnessResponse {
  status: number;
  contentType: string;
  body: string;
  /** What the request asked for, once it parsed (the witness's log line names it). */
  about?: { origin: string; size: number; oldSize: number };
}

export interface WitnessOptions {
  /** The logs witnessed, by origin (read per request: a vkey file may have changed, node-witness.ts). */
  logs: { get(origin: string): WitnessedLog | undefined };
  state: WitnessState;
  cosigners: Cosigner[];
  /** POSIX seconds for the cosignature timestamp. */
  now(): number;
}

const text = (status: number, body: string, contentType = 'text/plain; charset=utf-8'): WitnessResponse => ({ status, contentType, body: body.endsWith('\n') ? body : `${body}\n` });

/** What the witness does with one request body. Never throws for bad input: every failure is a status. */
export function addCheckpoint(body: string, opts: WitnessOptions): WitnessResponse {
  let req: AddCheckpointRequest;
  let cp: Checkpoint;
  let noteText: string;
  try {
    req = parseAddCheckpoint(body);
    const split = req.checkpoint.lastIndexOf('\n\n');
    noteText = split < 0 ? req.checkpoint : req.checkpoint.slice(0, split + 1);
    cp = parseCheckpoint(noteText);
  } catch (e) {
    return text(400, (e as Error).message);
  }
  return { ...answer(req, cp, noteText, body, opts), about: { origin: cp.origin, size: cp.size, oldSize: req.oldSize } };
}

function answer(req: AddCheckpointRequest, cp: Checkpoint, noteText: string, body: string, opts: WitnessOptions): WitnessResponse {
  const log = opts.logs.get(cp.origin);
  if (!log) return text(404, `unknown log origin ${JSON.stringify(cp.origin)}`);
  try {
    // The witness trusts exactly the keys configured for this origin; unknown lines are ignored.
    // Every key type configured must sign (ML-DSA-65 required): a note by the Ed25519 key alone is
    // what a forger holding only that key can make, and a cosignature would make it witnessed.
    openCompleteCheckpoint(req.checkpoint, log.verifiers, { classicalOk: log.classicalOk });
  } catch (e) {
    const r = text(403, `${(e as { code?: string }).code ?? 'ERR_VERIFY_NOTE'}: ${cp.origin}: ${(e as Error).message}`);
    // Signed by one of the log's keys and still refused: someone holds a log key, or the log
    // misbehaves. Kept as evidence, as tlog-witness allows for a valid signature.
    return signedByALogKey(req.checkpoint, log) ? refuse(opts, cp.origin, body, r) : r;
  }
  if (req.oldSize > cp.size) return text(400, `old size ${req.oldSize} is larger than the checkpoint size ${cp.size}`);
  if (req.oldSize === 0 && req.proof.length > 0) return refuse(opts, cp.origin, body, text(422, 'the proof must be empty when the old size is 0'));
  const result = opts.state.update<WitnessResponse>(cp.origin, (current) => {
    const latestSize = current?.size ?? 0;
    // 409 with the latest size: the client retries from the size we actually hold.
    if (req.oldSize !== latestSize) return { refuse: text(409, `${latestSize}\n`, SIZE_CONTENT_TYPE) };
    const older: Checkpoint = { origin: cp.origin, size: latestSize, root: current?.root ?? EMPTY_ROOT, extensions: [] };
    if (cp.size === latestSize && current && !bytesEqual(current.root, cp.root)) {
      return { refuse: text(409, `${latestSize}\n`, SIZE_CONTENT_TYPE) };
    }
    const ext = checkExtends(older, cp, req.proof);
    if (!ext.ok) return { refuse: text(ext.reason === 'fork' ? 409 : 422, ext.message) };
    return { next: { size: cp.size, root: cp.root, note: req.checkpoint }, result: text(200, '') };
  });
  if (result.status !== 200) return refuse(opts, cp.origin, body, result);
  // Persisted before we answer; the cosignatures state "as of now this is the largest tree we saw".
  const ts = Math.floor(opts.now());
  return { status: 200, contentType: 'text/plain; charset=utf-8', body: opts.cosigners.map((c) => c.cosign(noteText, ts)).join('') };
}

function signedByALogKey(note: string, log: WitnessedLog): boolean {
  try {
    verifyNote(note, log.verifiers, { classicalOk: true });
    return true;
  } catch {
    return false;
  }
}

function refuse(opts: WitnessOptions, origin: string, body: string, r: WitnessResponse): WitnessResponse {
  opts.state.recordRefusal?.(origin, r.status, r.body.trim(), body);
  return r;
}
