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
  // Lines stored under the log's own name came from the separate ML-DSA-44 cosigner vouch kept
  // before that key joined the log's keys: not a witness's, and not the log key now in its history.
  const attach = (cp: StoredCheckpoint | undefined): StoredCheckpoint | undefined =>
    cp && { ...cp, note: attachCosignatures(cp.note, store.lines(port.origin, cp.size, toHex(cp.root)).filter((l) => !l.startsWith(`\u2014 ${port.origin} `))) };
  return {
    ...port,
    latestCheckpoint: async () => attach(await port.latestCheckpoint()),
    checkpointAt: async (size) => attach(await port.checkpointAt(size)),
    // Rows under the log's own name (the former separate ML-DSA-44 cosigner) vouch for nothing outside.
    witnessed: async () => store.newestCosigned(port.origin, port.origin),
  };
}
