// ML-DSA-65 signing off the main thread (NODE-ONLY, loaded by worker-signer.ts). Plain
// JavaScript ESM so it runs under node, tsx and vitest without a TypeScript loader.
// Protocol: workerData {seed, deterministic, engine}, or workerData {prestart: true, engine} and
// then a first message {t: 'seed', seed, deterministic, engine}; posts {type:'ready', publicKey}; then answers each
// {id, message, context?} with {type:'signed', id, signature} or {type:'failed', id, error}, in order.
// With `context` (FIPS 204, 1-255 bytes: context.ts) noble signs, whatever the engine: PQClean's
// API has no context, and a signature without it would be a note's (empty context).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

// engine 'pqclean': PQClean's ML-DSA-65 (clean C, WebAssembly) signs with the FIPS 204 expanded
// key noble derives from the seed; hedged, its rnd from node:crypto's randomFillSync. It cannot
// sign deterministically, so `deterministic` always takes noble. Anything else: noble.
let pqSign;
function pqcleanSigner() {
  if (pqSign === undefined) {
    try {
      const { Sign } = createRequire(import.meta.url)('pqclean/wasm/index.js');
      pqSign = new Sign('ml-dsa-65');
    } catch (e) {
      // The module resolved in the parent (mldsa-backend.ts) but does not load here: its
      // WebAssembly is missing or does not instantiate. The thread ends, so every signature owed
      // fails and the service stops allowing; the message says how to sign without it.
      throw new Error(`pqclean ML-DSA-65 (WebAssembly) does not load: ${e && e.message ? e.message : e}; VOUCH_MLDSA=noble signs with noble instead`);
    }
  }
  return pqSign;
}

// The first signature costs ten times the next (the JIT warms up), and the first is a checkpoint
// some caller waits for: one is made before any is asked for, over bytes no note or result can be
// (a note ends in a newline, a result is a JSON object), and it never leaves this thread.
const WARM_UP = new TextEncoder().encode('vouch: signing-thread warm-up, never published\0');
let secretKey;
let opts;
/** (message) => signature with the key in secretKey. */
let signWith;

/**
 * PQClean's signature over the warm-up bytes must verify under noble with this key before it
 * signs anything else: a broken or miscompiled build stops the thread (every signature owed
 * fails, so signed callers get errors and, once the coverage bound passes, nothing is allowed)
 * instead of publishing checkpoints nobody can verify. It is a check of the build, not a defence
 * against someone who can replace installed code: code running here holds the key.
 */
function checkedPqclean(keys) {
  const pq = pqcleanSigner();
  const sig = pq.sign(keys.secretKey, WARM_UP);
  if (!(sig instanceof Uint8Array) || !ml_dsa65.verify(sig, WARM_UP, keys.publicKey)) throw new Error('pqclean ML-DSA-65 signature does not verify under noble: refusing to sign');
  return (message) => pq.sign(secretKey, message);
}

function start({ seed, deterministic, engine }) {
  const keys = ml_dsa65.keygen(seed);
  seed.fill(0);
  secretKey = keys.secretKey;
  // FIPS 204 hedged signing unless asked otherwise; the empty context, as in mldsa.ts.
  opts = deterministic ? { extraEntropy: false } : {};
  signWith = engine === 'pqclean' && !deterministic ? checkedPqclean(keys) : (message) => ml_dsa65.sign(message, secretKey, opts);
  parentPort.postMessage({ type: 'ready', publicKey: keys.publicKey });
}

if (workerData.prestart) {
  // Started before the key files are read (worker-signer.ts prestartSignWorker): the warm-up runs
  // then, with a throwaway key of zeros that signs nothing else, and the seed comes as a message.
  const throwaway = ml_dsa65.keygen(new Uint8Array(32));
  if (workerData.engine === 'pqclean') pqcleanSigner().sign(throwaway.secretKey, WARM_UP);
  else ml_dsa65.sign(WARM_UP, throwaway.secretKey);
  throwaway.secretKey.fill(0);
} else {
  start(workerData);
  if (workerData.warm !== false) signWith(WARM_UP);
}

parentPort.on('message', (req) => {
  if (secretKey === undefined) {
    // Only the seed can come first (worker-signer.ts sends it before any request). Anything else
    // ends the thread with an error, which fails every signature owed instead of leaving it waiting.
    if (!req || req.t !== 'seed' || !(req.seed instanceof Uint8Array)) throw new TypeError('the signing thread got a message before its seed');
    start(req);
    return;
  }
  try {
    if (!(req.message instanceof Uint8Array)) throw new TypeError('message must be a Uint8Array');
    if (req.context !== undefined && (!(req.context instanceof Uint8Array) || req.context.length === 0 || req.context.length > 255)) throw new TypeError('context must be 1 to 255 bytes');
    const signature = req.context === undefined ? signWith(req.message) : ml_dsa65.sign(req.message, secretKey, { ...opts, context: req.context });
    parentPort.postMessage({ type: 'signed', id: req.id, signature }, [signature.buffer]);
  } catch (e) {
    parentPort.postMessage({ type: 'failed', id: req.id, error: String(e && e.message ? e.message : e) });
  }
});
