// ML-DSA-65 signing off the main thread (NODE-ONLY, loaded by worker-signer.ts). Plain
// JavaScript ESM so it runs under node, tsx and vitest without a TypeScript loader.
// Protocol: workerData {seed, deterministic}, or workerData {prestart: true} and then a first
// message {t: 'seed', seed, deterministic}; posts {type:'ready', publicKey}; then answers each
// {id, message} with {type:'signed', id, signature} or {type:'failed', id, error}, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

// The first signature costs ten times the next (the JIT warms up), and the first is a checkpoint
// some caller waits for: one is made before any is asked for, over bytes no note or result can be
// (a note ends in a newline, a result is a JSON object), and it never leaves this thread.
const WARM_UP = new TextEncoder().encode('vouch: signing-thread warm-up, never published\0');
let secretKey;
let opts;

function start({ seed, deterministic }) {
  const keys = ml_dsa65.keygen(seed);
  seed.fill(0);
  secretKey = keys.secretKey;
  // FIPS 204 hedged signing unless asked otherwise; the empty context, as in mldsa.ts.
  opts = deterministic ? { extraEntropy: false } : {};
  parentPort.postMessage({ type: 'ready', publicKey: keys.publicKey });
}

if (workerData.prestart) {
  // Started before the key files are read (worker-signer.ts prestartSignWorker): the warm-up runs
  // then, with a throwaway key of zeros that signs nothing else, and the seed comes as a message.
  const throwaway = ml_dsa65.keygen(new Uint8Array(32));
  ml_dsa65.sign(WARM_UP, throwaway.secretKey);
  throwaway.secretKey.fill(0);
} else {
  start(workerData);
  if (workerData.warm !== false) ml_dsa65.sign(WARM_UP, secretKey, opts);
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
    const signature = ml_dsa65.sign(req.message, secretKey, opts);
    parentPort.postMessage({ type: 'signed', id: req.id, signature }, [signature.buffer]);
  } catch (e) {
    parentPort.postMessage({ type: 'failed', id: req.id, error: String(e && e.message ? e.message : e) });
  }
});
