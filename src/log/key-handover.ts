// Each rotation in a key history must be provable from the log: the stored checkpoint of exactly
// the rotation's handover size (its seq + 1) verifies strictly under the OUTGOING keys, and the
// rotation entry is the leaf that checkpoint's tree holds at its seq. Someone who can write the
// data files but holds no key cannot pass this for a rotation they made up. O(rotations · log n).
import { bytesEqual } from '../canonical/index.js';
import { openSignedCheckpoint } from './checkpoint.js';
import { decodeEntry } from './entry.js';
import type { KeyHistory } from './key-history.js';
import { historyVerifiers } from './key-history.js';
import { hashLeaf, inclusionProof, verifyInclusion } from './merkle.js';
import type { LogStorage } from './storage.js';

export interface HandoverProblem {
  seq: number;
  message: string;
}

export function checkHandovers(storage: LogStorage, history: KeyHistory): HandoverProblem[] {
  const problems: HandoverProblem[] = [];
  const verifiers = historyVerifiers(history);
  const rotations = [...new Set(history.keys.map((k) => k.rotatedIn).filter((s): s is number => s !== undefined))];
  for (const seq of rotations) {
    const bad = (message: string) => problems.push({ seq, message: `key rotation at entry ${seq}: ${message}` });
    // Revocation is not applied here: a revoke entry (signed later, by newer keys) may refuse the
    // handover checkpoint itself, and log verify says so; the chain of keys is what is checked here.
    const outgoing = verifiers.filter((_, i) => history.keys[i].rotatedOut === seq).map((v) => ({ ...v, window: { from: v.window!.from, to: v.window!.to } }));
    const size = seq + 1;
    const cp = storage.checkpointAt(size);
    if (!cp) {
      bad(`no stored handover checkpoint of size ${size}`);
      continue;
    }
    let root: Uint8Array;
    try {
      root = openSignedCheckpoint(cp.note, outgoing, { strict: true }).checkpoint.root;
    } catch (e) {
      bad(`the handover checkpoint of size ${size} is not signed by the outgoing keys: ${(e as Error).message}`);
      continue;
    }
    const entry = storage.entry(seq);
    let ok = false;
    try {
      ok = !!entry && decodeEntry(entry.bytes).type === 'key' && bytesEqual(hashLeaf(entry.bytes), entry.leaf) && verifyInclusion(seq, size, entry.leaf, inclusionProof(seq, size, storage), root);
    } catch {
      ok = false;
    }
    if (!ok) bad(`entry ${seq} is not the rotation the handover checkpoint of size ${size} signs`);
  }
  return problems;
}
