// Table-driven standard base64 for bundle lines: the same strict rules as canonical/fromBase64
// (padded, canonical trailing bits) at a speed that keeps a 100,000-entry bundle in seconds.
import { InputError } from '../errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENC = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DEC = new Int16Array(128).fill(-1);
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
  const at = (k: number): number => {
    const c = s.charCodeAt(k);
    const d = c < 128 ? DEC[c] : -1;
    if (d < 0) bad();
    return d;
  };
  let o = 0;
  const full = pad > 0 ? n - 4 : n;
  for (let k = 0; k < full; k += 4) {
    const v = (at(k) << 18) | (at(k + 1) << 12) | (at(k + 2) << 6) | at(k + 3);
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  if (pad === 2) {
    const a = at(n - 4);
    const b = at(n - 3);
    if ((b & 15) !== 0) bad(); // canonical: the dropped bits are zero
    out[o++] = (a << 2) | (b >> 4);
  } else if (pad === 1) {
    const a = at(n - 4);
    const b = at(n - 3);
    const c = at(n - 2);
    if ((c & 3) !== 0) bad();
    const v = (a << 18) | (b << 12) | (c << 6);
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
  }
  return out;
}
