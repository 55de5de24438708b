// ML-DSA-65 sign and verify rates, in-process on the main thread: noble (the portable backend
// every runtime uses) and node:crypto's native one where this Node has it (>= 24.7).
import { createMldsaSigner, createMldsaVerifier } from '../src/crypto/index.js';
import type { Signer, Verifier } from '../src/crypto/index.js';
import { createNativeMldsaSigner, createNativeMldsaVerifier, nativeMldsaAvailable } from '../src/crypto/native-mldsa.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const MSG = new TextEncoder().encode('vouch.local/default\n4096\nq2sYwZQ3ubsTxA6+vM0e1Ub5b8f2LVVk2V3uVD1dHQA=\n');

async function rate(n: number, op: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await op();
  return n / ((performance.now() - start) / 1000);
}

async function measure(ctx: BenchContext, label: string, signer: Signer, verifier: Verifier): Promise<{ sign: number; verify: number }> {
  const n = ctx.quick ? 20 : 200;
  const sig = await signer.sign(MSG);
  const signs: number[] = [];
  const verifies: number[] = [];
  for (let r = 0; r < ctx.repeat; r++) {
    signs.push(await rate(n, () => signer.sign(MSG)));
    verifies.push(await rate(n, () => verifier.verify(MSG, sig)));
  }
  ctx.log(`mldsa: ${label} measured`);
  return { sign: median(signs), verify: median(verifies) };
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const nobleSigner = createMldsaSigner(SEED);
  const noble = await measure(ctx, 'noble', nobleSigner, createMldsaVerifier(nobleSigner.publicKey));
  const out: Result[] = [
    { name: 'mldsa65 noble sign', unit: 'ops/s', value: round(noble.sign) },
    { name: 'mldsa65 noble verify', unit: 'ops/s', value: round(noble.verify) },
  ];
  if (!nativeMldsaAvailable()) {
    const note = `native ML-DSA backend absent on Node ${process.versions.node} (node:crypto has ML-DSA from 24.7)`;
    out.push({ name: 'mldsa65 native sign', unit: 'ops/s', value: 0, note }, { name: 'mldsa65 native verify', unit: 'ops/s', value: 0, note });
    return out;
  }
  const nativeSigner = createNativeMldsaSigner(SEED);
  const native = await measure(ctx, 'native', nativeSigner, createNativeMldsaVerifier(nativeSigner.publicKey));
  out.push(
    { name: 'mldsa65 native sign', unit: 'ops/s', value: round(native.sign), baseline: round(noble.sign), ratio: round(native.sign / noble.sign) },
    { name: 'mldsa65 native verify', unit: 'ops/s', value: round(native.verify), baseline: round(noble.verify), ratio: round(native.verify / noble.verify) },
  );
  return out;
}
