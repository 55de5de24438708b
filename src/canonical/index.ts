// Canonical bytes and digests: the one way any vouch value becomes bytes to hash or sign.
export { escapePointer, isPlainObject, setMember, type Json } from './json.js';
export { canonicalBytes, canonicalText, parseJson, MAX_DEPTH } from './jcs.js';
export { sha256, installSha256, digestBytes, digestJson, isDigest, parseDigest, type Digest } from './digest.js';
export { toHex, fromHex, toBase64, fromBase64, installBase64, installUtf8, utf8, concatBytes, bytesEqual, sameBytes, installSameBytes, type Base64Codec } from './encoding.js';
