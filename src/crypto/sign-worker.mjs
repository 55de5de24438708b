// ML-DSA-65 signing off the main thread (NODE-ONLY, loaded by worker-signer.ts). Plain
// JavaScript ESM so it runs under node, tsx and vitest without a TypeScript loader.
// Protocol: workerData {seed, deterministic}; posts {type:'ready', publicKey}; then answers each
// {id, message} with {type:'signed', id, signature} or {type:'failed', id, error}, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

const { seed, deterministic } = workerData;
const { publicKey, secretKey } = ml_dsa65.keygen(seed);
seed.fill(0);
// FIPS 204 hedged signing unless asked otherwise; the empty context, as in mldsa.ts.
const opts = deterministic ? { extraEntropy: false } : {};

parentPort.postMessage({ type: 'ready', publicKey });
// One signature before any is asked for: the first costs ten times the next (the JIT warms up),
// and the first is a checkpoint some caller waits for. It is made over bytes no note or result
// can be (a note ends in a newline, a result is a JSON object) and never leaves this thread.
if (workerData.warm !== false) ml_dsa65.sign(new TextEncoder().encode('vouch: signing-thread warm-up, never published\0'), secretKey, opts);
parentPort.on('message', (req) => {
  try {
    if (!(req.message instanceof Uint8Array)) throw new TypeError('message must be a Uint8Array');
    const signature = ml_dsa65.sign(req.message, secretKey, opts);
    parentPort.postMessage({ type: 'signed', id: req.id, signature }, [signature.buffer]);
  } catch (e) {
    parentPort.postMessage({ type: 'failed', id: req.id, error: String(e && e.message ? e.message : e) });
  }
});
