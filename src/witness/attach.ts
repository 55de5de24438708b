// Serving witnessed checkpoints: a tenant's LogPort whose checkpoints carry the cosignature lines
// collected for them (GET /v1/checkpoint, receipts from /v1/entries, proofs, bundles), or an
// export source (`vouch export`). The stored notes are untouched. Portable over any CosignatureStore.
import { toHex } from '../canonical/index.js';
import type { StoredCheckpoint } from '../log/storage.js';
import type { LogPort } from '../store/log-port.js';
import type { CosignatureStore } from './cosig-store.js';
import { attachCosignatures } from './verify.js';

/** Checkpoint reads (a LogPort, an export source) whose notes carry the cosignatures collected for them. */
type CheckpointReads = Pick<LogPort, 'origin' | 'latestCheckpoint' | 'checkpointAt'>;

export function withCosignatures<P extends CheckpointReads>(port: P, store: Pick<CosignatureStore, 'lines'>): P {
  const attach = (cp: StoredCheckpoint | undefined): StoredCheckpoint | undefined =>
    cp && { ...cp, note: attachCosignatures(cp.note, store.lines(port.origin, cp.size, toHex(cp.root))) };
  return {
    ...port,
    latestCheckpoint: async () => attach(await port.latestCheckpoint()),
    checkpointAt: async (size) => attach(await port.checkpointAt(size)),
  };
}
