// Receipts from a real log for receipt tests: a few entries, receipts with non-empty proofs, and
// the log's later checkpoints and consistency proofs.
import { createHash } from 'node:crypto';
import { toHex } from '../../src/canonical/index.js';
import { hashLeaf, type NoteVerifier } from '../../src/log/index.js';
import { buildReceipt, type Receipt } from '../../src/receipt/index.js';
import { T, testLog } from '../execution/_log.js';

export async function logWithReceipts(n = 5) {
  const log = testLog();
  for (let i = 0; i < n; i++) await log.append({ type: 'decision', time: T, tenant: 'acme', principal: `agent-${i}`, event: 'tools/call', decision: { effect: 'allow', status: 'success' } });
  /** Receipt for `seq` against the checkpoint signed at `size`. */
  const receipt = async (seq: number, size: number): Promise<Receipt> => {
    const bytes = (await log.entry(seq))!;
    const cp = (await log.checkpointAt(size))!;
    return buildReceipt({ bytes, leaf: hashLeaf(bytes), seq, proof: await log.inclusionProof(seq, size), checkpoint: cp.note });
  };
  /** What GET /v1/proofs/consistency?from=&to= returns. */
  const consistency = async (from: number, to: number) => ({ from, to, proof: (await log.consistencyProof(from, to)).map(toHex), checkpoint: (await log.checkpointAt(to))!.note });
  return { log, receipt, consistency };
}

/** Signature checks are pure: memoize them so thousands of flips re-verify only what changed. */
export function memoized(verifiers: NoteVerifier[]): NoteVerifier[] {
  return verifiers.map((v) => {
    const seen = new Map<string, boolean>();
    return {
      ...v,
      verify: (msg: Uint8Array, sig: Uint8Array) => {
        const key = createHash('sha256').update(msg).update(Uint8Array.of(0)).update(sig).digest('hex');
        let ok = seen.get(key);
        if (ok === undefined) seen.set(key, (ok = v.verify(msg, sig)));
        return ok;
      },
    };
  });
}
