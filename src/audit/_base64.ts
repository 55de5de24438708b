// Table-driven standard base64 for bundle lines: the same strict rules as canonical/fromBase64
// (padded, canonical trailing bits) at a speed that keeps a 100,000-entry bundle in seconds.
import { InputError } from '../errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENC = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
// Indexed by any UTF-16 code unit (128 KiB), so the hot loop needs no range check per char.
const DEC = new Int16Array(65536).fill(-1);
for (let i = 0; i < 64; i++) DEC[ENC[i]] = i;
const ascii = new TextDecoder();

export function encodeBase64(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(4 * Math.ceil(n / 3));
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = ENC[(v >> 6) & 63];
    out[o++] = ENC[v & 63];
  }
  if (n - i === 1) {
    const v = bytes[i] << 16;
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = 61;
    out[o++] = 61;
  } else if (n - i === 2) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = ENC[(v >> 6) & 63];
    out[o++] = 61;
  }
  return ascii.decode(out);
}

function bad(): never {
  throw new InputError('ERR_INPUT', 'not canonical standard padded base64');
}

export function decodeBase64(s: string): Uint8Array {
  const n = s.length;
  if (n % 4 !== 0) bad();
  const pad = n > 0 && s.charCodeAt(n - 1) === 61 ? (s.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const out = new Uint8Array((n / 4) * 3 - pad);
  let o = 0;
  const full = pad > 0 ? n - 4 : n;
  for (let k = 0; k < full; k += 4) {
    const a = DEC[s.charCodeAt(k)];
    const b = DEC[s.charCodeAt(k + 1)];
    const c = DEC[s.charCodeAt(k + 2)];
    const d = DEC[s.charCodeAt(k + 3)];
    if ((a | b | c | d) < 0) bad();
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  if (pad > 0) {
    const a = DEC[s.charCodeAt(n - 4)];
    const b = DEC[s.charCodeAt(n - 3)];
    const c = pad === 1 ? DEC[s.charCodeAt(n - 2)] : 0;
    if ((a | b | c) < 0) bad();
    if (pad === 2) {
      if ((b & 15) !== 0) bad(); // canonical: the dropped bits are zero
      out[o++] = (a << 2) | (b >> 4);
    } else {
      if ((c & 3) !== 0) bad();
      out[o++] = (a << 2) | (b >> 4);
      out[o++] = ((b & 15) << 4) | (c >> 2);
    }
  }
  return out;
}
