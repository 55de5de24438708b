// Node-only crypto: the worker-thread ML-DSA signer, 0600 key files and seed generation.
// Import from here only in Node entry points (cli/, http/node, store/sqlite), never from the core.
export { nodeSha256, nodeSha256Hex } from './node-sha256.js';
export { nodeBase64 } from './node-base64.js';
export { nodeUtf8Decode } from './node-utf8.js';
export { nodeSameBytes } from './node-bytes.js';
export { createWorkerSigner, createSignerFromSeed, prestartSignWorker, type WorkerSignerOptions } from './worker-signer.js';
export { writeKeyFile, readKeyFile, generateSeed } from './key-file.js';
export { createNodeEd25519Signer, createNodeEd25519Verifier, nodeEd25519PublicKeyFromSeed, nodeVerifyEd25519 } from './node-ed25519.js';
export { mldsaBackend, describeMldsaBackend, type MldsaBackend } from './mldsa-backend.js';
