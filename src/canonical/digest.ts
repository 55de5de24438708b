// SHA-256 digests written `sha256:<hex>`. @noble/hashes keeps the core runnable anywhere
// (Node, Workers, browser) without node:crypto.
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { InputError } from '../errors.js';
import { toHex } from './encoding.js';
import { canonicalBytes } from './jcs.js';

export type Digest = `sha256:${string}`;

let sha256Impl: (bytes: Uint8Array) => Uint8Array = nobleSha256;

/**
 * Use the platform's SHA-256 instead of the portable one: Node's entry points install node:crypto's
 * (crypto/node-sha256.ts), 4-12x faster on entries and documents and with no JIT warm-up. It must
 * be SHA-256: test/canonical/sha256-impl.test.ts holds the two equal.
 */
export function installSha256(f: (bytes: Uint8Array) => Uint8Array, hex?: (bytes: Uint8Array) => string): void {
  sha256Impl = f;
  sha256HexImpl = hex;
}

/** The same digest as lowercase hex in one call, where the platform has one (node:crypto's hash): no digest object, no bytes. */
let sha256HexImpl: ((bytes: Uint8Array) => string) | undefined;

export function sha256(bytes: Uint8Array): Uint8Array {
  return sha256Impl(bytes);
}

export function digestBytes(bytes: Uint8Array): Digest {
  return `sha256:${sha256HexImpl ? sha256HexImpl(bytes) : toHex(sha256(bytes))}`;
}

/** Digest of the JCS bytes of a JSON value. */
export function digestJson(value: unknown): Digest {
  return digestBytes(canonicalBytes(value));
}

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

export function isDigest(s: unknown): s is Digest {
  return typeof s === 'string' && DIGEST_RE.test(s);
}

export function parseDigest(s: unknown, path = ''): Digest {
  if (!isDigest(s)) throw new InputError('ERR_INPUT', 'not a sha256:<hex> digest', [{ path, message: 'bad digest' }]);
  return s;
}
