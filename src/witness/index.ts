// Witnesses (c2sp.org/tlog-witness, tlog-cosignature): cosignature formats, the add-checkpoint
// protocol, the witness itself and the log's client. Portable surface; Node parts are imported
// by path (node-log.ts, node-witness.ts, reset.ts, state.ts, cosig-store.ts, key-file.ts, server.ts).
export { COSIGN_ALGS, COSIGN_TYPE, cosignKeyId, cosignerKeyOf, createCosigner, ed25519CosignedMessage, mldsa44CosignedMessage, verifyCosignature, type CosignAlg, type Cosigner, type CosignerKey } from './cosignature.js';
export { formatCosignerVkey, parseCosignerVkey, parseCosignerVkeys } from './vkey.js';
export { formatAddCheckpoint, parseAddCheckpoint, parseConflictSize, SIZE_CONTENT_TYPE, MAX_PROOF_LINES, type AddCheckpointRequest } from './request.js';
export { addCheckpoint, type TreeHead, type WitnessedLog, type WitnessOptions, type WitnessResponse, type WitnessState } from './witness.js';
export { verifyWitnesses, attachCosignatures, type WitnessCosignature, type WitnessVerdict } from './verify.js';
export { postAddCheckpoint, type AddCheckpointAnswer } from './client.js';
export { WitnessSubmitter, type CheckpointSource, type SubmitterOptions, type WitnessEndpoint, type WitnessStatus } from './submitter.js';
export { parseWitnessingConfig, type WitnessingConfig } from './config.js';
export { withCosignatures } from './attach.js';
