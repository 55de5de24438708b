// Raw DEFLATE with a preset dictionary, inflated many times a second (NODE-ONLY; entry-codec.ts):
// `inflateRawSync` builds a stream, a 16 KiB buffer and a zlib state for every row, which cost log
// verify and the background audit two thirds of their time per compact row (10 us of about 3 us of
// inflating). Here one zlib handle per dictionary is reset between rows. Only the plain case is
// taken: the whole input consumed, the stream ended, the output in the buffer; anything else
// (an error, trailing bytes, a large entry, a Node without the handle) goes to `inflateRawSync`,
// whose answer, bytes or error, is the one every reader gets.
import { constants, createInflateRaw, inflateRawSync } from 'node:zlib';

/** zlib's handle as node:zlib's own sync path drives it (lib/zlib.js processChunkSync). */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
}

/** Output room of the fast path: far above an entry's few KiB; a larger one takes the slow path. */
const OUT_BYTES = 64 * 1024;
/** Handles kept (one per dictionary, the most recently used): a log reads with one or two at a time. */
const KEPT = 4;

/**
 * The inflated bytes after one 0x00 byte (RFC 9162's leaf prefix: the caller hashes the leaf without
 * copying them again; the bytes are `.subarray(1)`), valid until the next call of the same inflater
 * (the fast path gives its own output buffer: a caller that keeps the bytes copies them; one that
 * only compares or hashes them copies nothing). `fast`: rows go through a reused handle (false:
 * this Node's zlib has none, every row is inflateRawSync's).
 */
export type Inflate = ((stored: Uint8Array) => Buffer) & { fast: boolean };

const PREFIX = Buffer.alloc(1);

const kept = new Map<Uint8Array, Inflate>();

/** The inflater of `dictionary` (by identity): output capped at `maxOutputLength` like inflateRawSync's. */
export function rawInflater(dictionary: Uint8Array, maxOutputLength: number): Inflate {
  const hit = kept.get(dictionary);
  if (hit) return hit;
  const slow = (stored: Uint8Array): Buffer => Buffer.concat([PREFIX, inflateRawSync(stored, { dictionary, maxOutputLength })]);
  const fast = handleInflater(dictionary, Math.min(OUT_BYTES, maxOutputLength));
  const inflate = Object.assign(fast ? (stored: Uint8Array) => fast(stored) ?? slow(stored) : slow, { fast: fast !== undefined });
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
  kept.set(dictionary, inflate);
  return inflate;
}

function handleInflater(dictionary: Uint8Array, room: number): ((stored: Uint8Array) => Buffer | undefined) | undefined {
  let stream: ReturnType<typeof createInflateRaw>;
  try {
    stream = createInflateRaw({ dictionary });
  } catch {
    return undefined;
  }
  const internals = stream as unknown as { _handle?: ZlibHandle; _writeState?: Uint32Array };
  const handle = internals._handle;
  const state = internals._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) return undefined;
  let failed = false;
  let broken = false;
  handle.onerror = () => {
    failed = true;
  };
  const out = Buffer.allocUnsafe(room + 1);
  out[0] = 0; // the leaf prefix, before the output
  const owner = { stream }; // the handle lives as long as its stream: kept referenced by the closure
  return (stored) => {
    if (broken || !owner.stream) return undefined;
    failed = false;
    state[0] = 0;
    state[1] = stored.byteLength;
    try {
      handle.writeSync(constants.Z_FINISH, stored, 0, stored.byteLength, out, 1, room);
    } catch {
      failed = true;
    }
    const availOut = state[0];
    const availIn = state[1];
    try {
      handle.reset(); // back to the dictionary, for the next row
    } catch {
      broken = true; // a handle that cannot reset is not used again
      return undefined;
    }
    // zlib reports a stream cut short under Z_FINISH as an error (onerror); anything unusual is the slow path's to judge.
    if (failed || availIn !== 0 || availOut === 0) return undefined;
    return out.subarray(0, 1 + room - availOut); // the scratch itself: the caller copies what it keeps
  };
}
