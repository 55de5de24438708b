// Serving witnessed checkpoints: a tenant's LogPort whose checkpoints carry the cosignature lines
// collected for them (GET /v1/checkpoint, receipts from /v1/entries, proofs, bundles), or an
// export source (`vouch export`). The stored notes are untouched; `witnessed()` says which is the
// newest checkpoint a witness cosigned (GET /v1/checkpoint, the console). Portable over any CosignatureStore.
import { toHex } from '../canonical/index.js';
import type { StoredCheckpoint } from '../log/storage.js';
import type { LogPort } from '../store/log-port.js';
import type { CosignatureStore, NewestCosigned } from './cosig-store.js';
import { attachCosignatures } from './verify.js';

/** Checkpoint reads (a LogPort, an export source) whose notes carry the cosignatures collected for them. */
type CheckpointReads = Pick<LogPort, 'origin' | 'latestCheckpoint' | 'checkpointAt'>;

export function withCosignatures<P extends CheckpointReads>(port: P, store: Pick<CosignatureStore, 'lines' | 'newestCosigned'>): P & { witnessed(): Promise<NewestCosigned | undefined> } {
  const attach = (cp: StoredCheckpoint | undefined): StoredCheckpoint | undefined =>
    cp && { ...cp, note: attachCosignatures(cp.note, store.lines(port.origin, cp.size, toHex(cp.root))) };
  return {
    ...port,
    latestCheckpoint: async () => attach(await port.latestCheckpoint()),
    checkpointAt: async (size) => attach(await port.checkpointAt(size)),
    // The log's own ML-DSA-44 cosigner is named after its origin (node-log.ts): it vouches for nothing outside.
    witnessed: async () => store.newestCosigned(port.origin, port.origin),
  };
}
