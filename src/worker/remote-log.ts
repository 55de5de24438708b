// The LogPort the Worker's app uses: every call forwarded over RPC to the tenant's log object
// (idFromName(tenant)), errors rethrown with their codes. The Worker keeps no log state itself.
import type { LogPort } from '../store/log-port.js';
import type { LogObjectRpc } from './log-object-rpc.js';
import { unwrapResult } from './rpc-result.js';

export function remoteLogPort(stub: LogObjectRpc, tenant: string, origin: string, opts: { witnessed?: boolean } = {}): LogPort {
  const port: LogPort = {
    origin,
    append: async (body, attachments) => unwrapResult(await stub.append(tenant, body, attachments ?? [])),
    size: async () => unwrapResult(await stub.size(tenant)),
    entry: async (seq) => unwrapResult(await stub.entry(tenant, seq)),
    latestCheckpoint: async () => unwrapResult(await stub.latestCheckpoint(tenant)),
    checkpointAt: async (size) => unwrapResult(await stub.checkpointAt(tenant, size)),
    inclusionProof: async (seq, size) => unwrapResult(await stub.inclusionProof(tenant, seq, size)),
    consistencyProof: async (a, b) => unwrapResult(await stub.consistencyProof(tenant, a, b)),
    payload: async (d) => unwrapResult(await stub.payload(tenant, d)),
    erasePayload: async (d) => unwrapResult(await stub.erasePayload(tenant, d)),
    document: async (d) => unwrapResult(await stub.document(tenant, d)),
    putDocument: async (k, d, b) => unwrapResult(await stub.putDocument(tenant, k, d, b)),
    nodes: async (level, lo, hi) => unwrapResult(await stub.nodes(tenant, level, lo, hi)),
    /** Streamed page by page: memory holds one page, however long the range. */
    async *entries(from, to) {
      let next = from;
      while (next < to) {
        const page = unwrapResult(await stub.entries(tenant, next, to));
        if (page.length === 0) return;
        for (const e of page) yield e;
        next = page[page.length - 1].seq + 1;
      }
    },
  };
  // With witnessing (as Node's leased port): GET /v1/checkpoint says how far the witnesses are behind.
  if (opts.witnessed) port.witnessed = async () => unwrapResult(await stub.witnessed(tenant));
  return port;
}
