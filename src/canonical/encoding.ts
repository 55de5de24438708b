// Byte encodings used by every format: hex (digests, proofs) and standard base64 (notes, receipts).
// Strict decoders: anything that is not exactly the canonical text of some bytes is rejected.
import { InputError } from '../errors.js';

const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX_PAIRS[bytes[i]];
  return s;
}

export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) {
    throw new InputError('ERR_INPUT', 'not lowercase hex of whole bytes');
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A platform's own base64 encoder and decoder (standard alphabet, padded), if installed. */
export interface Base64Codec {
  encode(bytes: Uint8Array): string;
  /** Only ever given text that is canonical padded base64 (checked first). */
  decode(text: string): Uint8Array;
}

let platform: Base64Codec | undefined;

/**
 * Use the platform's base64 (Node's Buffer: crypto/node-base64.ts) instead of the portable one
 * below: an entry or an ML-DSA signature is 2-4 KB, about 15 us here in JavaScript, 0.5 us in
 * Buffer. test/canonical/base64-impl.test.ts holds the two equal.
 */
export function installBase64(codec: Base64Codec): void {
  platform = codec;
}

export function toBase64(bytes: Uint8Array): string {
  return platform ? platform.encode(bytes) : toBase64Portable(bytes);
}

/** Standard padded base64 in plain JavaScript (Workers, browsers). */
export function toBase64Portable(bytes: Uint8Array): string {
  let s = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + '=';
  }
  return s;
}

const B64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const sextet = (text: string, i: number): number => (text[i] === '=' ? 0 : B64.indexOf(text[i]));

/** Standard padded base64 (RFC 4648 section 4); non-canonical encodings are rejected. */
export function fromBase64(text: string): Uint8Array {
  if (typeof text !== 'string' || !B64_RE.test(text)) {
    throw new InputError('ERR_INPUT', 'not standard padded base64');
  }
  const out = platform ? platform.decode(text) : fromBase64Portable(text);
  // Canonical form: the bits dropped by padding must be zero, so each byte string has one text.
  if (toBase64(out) !== text) throw new InputError('ERR_INPUT', 'non-canonical base64');
  return out;
}

/** Decode text the pattern accepted, in plain JavaScript. */
export function fromBase64Portable(text: string): Uint8Array {
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n = (sextet(text, i) << 18) | (sextet(text, i + 1) << 12) | (sextet(text, i + 2) << 6) | sextet(text, i + 3);
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

// One of each: neither keeps state between calls (no streaming), and making one per call cost
// more than encoding an entry.
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A platform's own strict UTF-8 decoder (Node: crypto/node-utf8.ts), if installed: undefined for
 * invalid UTF-8, a BOM kept as U+FEFF (as `decoder` does). A fatal TextDecoder took about 8 us on
 * a 1.5 KB entry here, Node's validate-then-slice 0.5 (`vouch log verify` decodes every entry).
 */
let platformUtf8: ((b: Uint8Array) => string | undefined) | undefined;

/** test/canonical/utf8-impl.test.ts holds the installed decoder equal to the fatal TextDecoder. */
export function installUtf8(decode: (b: Uint8Array) => string | undefined): void {
  platformUtf8 = decode;
}

export const utf8 = {
  encode: (s: string): Uint8Array => encoder.encode(s),
  /** Fatal decoding: invalid UTF-8 is an input error, not U+FFFD. */
  decode: (b: Uint8Array): string => {
    try {
      if (platformUtf8) {
        const s = platformUtf8(b);
        if (s === undefined) throw new TypeError('The encoded data was not valid for encoding utf-8');
        return s;
      }
      return decoder.decode(b);
    } catch (cause) {
      throw new InputError('ERR_INPUT', 'invalid UTF-8', [], { cause });
    }
  },
};

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

let sameBytesImpl: ((a: Uint8Array, b: Uint8Array) => boolean) | undefined;

/** Use the platform's byte comparison for sameBytes (Node: crypto/node-bytes.ts, a memcmp). */
export function installSameBytes(f: (a: Uint8Array, b: Uint8Array) => boolean): void {
  sameBytesImpl = f;
}

/**
 * Whether two byte strings of public data are equal, at the platform's speed where installed:
 * not constant-time (bytesEqual is), for comparing a log's copies of its own bytes (a 1.5 KB entry
 * beside its archived copy: a JS loop cost log verify about 2 us an entry).
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return sameBytesImpl ? sameBytesImpl(a, b) : bytesEqual(a, b);
}
