// Cosigner verifier keys: signed-note vkeys with signature type 0x04 (Ed25519) or 0x06
// (ML-DSA-44), as tlog-cosignature says they MAY be encoded:
//   <name>+<8 hex digits of key id>+<base64(type || public key)>     Portable.
import { concatBytes, toBase64, toHex } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { splitVkey } from '../log/vkey.js';
import { COSIGN_ALGS, COSIGN_TYPE, cosignerKeyOf, type CosignAlg, type CosignerKey } from './cosignature.js';

function bad(message: string): never {
  throw new InputError('ERR_KEY_FORMAT', `invalid cosigner verifier key: ${message}`);
}

export function formatCosignerVkey(key: CosignerKey): string {
  return `${key.name}+${toHex(key.keyId)}+${toBase64(concatBytes(Uint8Array.of(COSIGN_TYPE[key.alg]), key.publicKey))}`;
}

export function parseCosignerVkey(text: string): CosignerKey {
  if (typeof text !== 'string' || text.length > 8192) bad('must be a string of at most 8192 characters');
  const line = text.trim();
  const { name, idHex, key: raw } = splitVkey(line, bad);
  const alg: CosignAlg | undefined = COSIGN_ALGS.find((a) => COSIGN_TYPE[a] === raw[0]);
  if (!alg) return bad(`signature type 0x${toHex(raw.subarray(0, 1))} is not a cosignature type (0x04 Ed25519, 0x06 ML-DSA-44)`);
  const key = cosignerKeyOf(name, alg, raw.slice(1));
  if (toHex(key.keyId) !== idHex) bad(`key id ${idHex} does not match the key (expected ${toHex(key.keyId)})`);
  return key;
}

/** Every non-empty line of a vkey file (or a single vkey given on the command line). */
export function parseCosignerVkeys(text: string): CosignerKey[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0 && !l.startsWith('#')).map(parseCosignerVkey);
}
