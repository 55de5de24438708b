// A tenant's log port that stays valid while the log itself closes when idle and opens again
// (tenant-pool.ts, issue 40): each call holds the log open for as long as it runs (an append until
// it is answered, a stream of entries until it ends), so a close never lands under a use.
import { VouchError } from '../errors.js';
import type { LogPort } from '../store/log-port.js';
import type { TenantPool } from './tenant-pool.js';

export function leasedPort(origin: string, tenant: string, pool: TenantPool<{ port: LogPort }>, opts: { witnessed: boolean }): LogPort {
  const use = <R>(f: (p: LogPort) => Promise<R>): Promise<R> => pool.use(tenant, (v) => f(v.port));
  const port: LogPort = {
    origin,
    append: (body, attachments) => use((p) => p.append(body, attachments)),
    appendDurable: (body, attachments, o) => use((p) => (p.appendDurable ? p.appendDurable(body, attachments, o) : p.append(body, attachments).then((a) => ({ seq: a.seq, bytes: a.bytes, leaf: a.leaf, signed: Promise.resolve(a) })))),
    size: () => use((p) => p.size()),
    entry: (seq) => use((p) => p.entry(seq)),
    latestCheckpoint: () => use((p) => p.latestCheckpoint()),
    checkpointAt: (size) => use((p) => p.checkpointAt(size)),
    inclusionProof: (seq, size) => use((p) => p.inclusionProof(seq, size)),
    consistencyProof: (a, b) => use((p) => p.consistencyProof(a, b)),
    payload: (d) => use((p) => p.payload(d)),
    erasePayload: (d) => use((p) => p.erasePayload(d)),
    document: (d) => use((p) => p.document(d)),
    putDocument: (k, d, b) => use((p) => p.putDocument(k, d, b)),
    nodes: (level, lo, hi) => use((p) => (p.nodes ? p.nodes(level, lo, hi) : Promise.reject(new Error('nodes not available')))),
    async *entries(from, to) {
      const lease = await pool.acquire(tenant);
      try {
        yield* lease.value.port.entries(from, to);
      } finally {
        lease.release();
      }
    },
  };
  if (opts.witnessed) port.witnessed = () => use((p) => p.witnessed!());
  port.expiredPayloads = (beforeSeq, limit) => use((p) => (p.expiredPayloads ? p.expiredPayloads(beforeSeq, limit) : Promise.reject(new VouchError('ERR_CONFIG', 'payload retention is not available on this store'))));
  port.eraseExpiredPayload = (d, beforeSeq) => use((p) => (p.eraseExpiredPayload ? p.eraseExpiredPayload(d, beforeSeq) : Promise.reject(new VouchError('ERR_CONFIG', 'payload retention is not available on this store'))));
  return port;
}
