// tlog-witness add-checkpoint request bodies: `old <size>\n`, up to 63 base64 consistency proof
// lines, an empty line, then the signed checkpoint. Strict parsing: anything else is a 400.
// Portable.
import { fromBase64, toBase64 } from '../canonical/index.js';
import { InputError } from '../errors.js';

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The signed checkpoint note, exactly as sent. */
  checkpoint: string;
}

/** "The client MUST NOT send more than 63 consistency proof lines." */
export const MAX_PROOF_LINES = 63;
/** Bound on a request body: a checkpoint with a few post-quantum signatures is ~10-30 kB. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** The 409 body's media type: the witness's latest cosigned size, in decimal, then a newline. */
export const SIZE_CONTENT_TYPE = 'text/x.tlog.size';

const SIZE = /^(0|[1-9][0-9]{0,15})$/;

export function formatAddCheckpoint(r: AddCheckpointRequest): string {
  return `old ${r.oldSize}\n${r.proof.map((h) => `${toBase64(h)}\n`).join('')}\n${r.checkpoint}`;
}

function bad(message: string): never {
  throw new InputError('ERR_INPUT', `malformed add-checkpoint request: ${message}`);
}

export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  if (typeof body !== 'string' || body.length > MAX_REQUEST_BYTES) bad(`body must be at most ${MAX_REQUEST_BYTES} bytes`);
  const blank = body.indexOf('\n\n');
  if (blank < 0) bad('no empty line before the checkpoint');
  const head = body.slice(0, blank).split('\n');
  const m = /^old (.*)$/.exec(head[0]);
  if (!m || !SIZE.test(m[1]) || !Number.isSafeInteger(Number(m[1]))) bad('first line must be "old <size>" in decimal without leading zeroes');
  const proofLines = head.slice(1);
  if (proofLines.length > MAX_PROOF_LINES) bad(`more than ${MAX_PROOF_LINES} consistency proof lines`);
  const proof = proofLines.map((l, i) => {
    let h: Uint8Array;
    try {
      h = fromBase64(l);
    } catch {
      return bad(`proof line ${i + 1} is not standard base64`);
    }
    if (h.length !== 32) bad(`proof line ${i + 1} is not a 32-byte hash`);
    return h;
  });
  return { oldSize: Number(m![1]), proof, checkpoint: body.slice(blank + 2) };
}

/** The 409 Conflict body: "the tree size of the latest cosigned checkpoint in decimal, followed by a newline". */
export function parseConflictSize(body: string): number | undefined {
  const m = /^(0|[1-9][0-9]{0,15})\n$/.exec(body);
  return m && Number.isSafeInteger(Number(m[1])) ? Number(m[1]) : undefined;
}
