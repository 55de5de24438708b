// fsck for a whole log: every entry's bytes and leaf, every prev link, every stored tree node,
// every checkpoint's root and signature. Returns every finding with where it is, not the first.
import { bytesEqual, toHex } from '../canonical/index.js';
import { codeOf, type ErrorCode } from '../errors.js';
import { openCheckpoint } from './checkpoint.js';
import { decodeEntry, GENESIS_PREV } from './entry.js';
import { appendLeaf, emptyRange, hashLeaf, rangeRoot, type CompactRange } from './merkle.js';
import type { NoteVerifier } from './note.js';
import type { LogStorage, StoredCheckpoint } from './storage.js';

export type FindingKind = 'entry' | 'leaf' | 'link' | 'node' | 'checkpoint' | 'signature' | 'size';

export interface Finding {
  kind: FindingKind;
  /** The entry's seq, for entry, leaf, link and node findings. */
  seq?: number;
  /** The checkpoint's tree size, for checkpoint and signature findings. */
  checkpoint?: number;
  code: ErrorCode;
  message: string;
}

export interface LogReport {
  origin: string;
  size: number;
  root: string;
  entries: number;
  nodes: number;
  checkpoints: number;
  findings: Finding[];
}

export interface VerifyLogOptions {
  origin: string;
  verifiers: NoteVerifier[];
  /** Stop listing after this many findings (the count is still exact for what was listed). */
  maxFindings?: number;
}

export function verifyLog(storage: LogStorage, opts: VerifyLogOptions): LogReport {
  const findings: Finding[] = [];
  const max = opts.maxFindings ?? 10_000;
  const add = (f: Finding) => {
    if (findings.length < max) findings.push(f);
  };
  const size = storage.size();
  const checkpoints = [...storage.checkpoints()];
  let next = 0; // index into checkpoints, which come ordered by size
  let range: CompactRange = emptyRange();
  let prev = GENESIS_PREV;
  let nodes = 0;

  const checkCheckpointsAt = (treeSize: number) => {
    while (next < checkpoints.length && checkpoints[next].size === treeSize) {
      checkCheckpoint(checkpoints[next], rangeRoot(range), opts, add);
      next++;
    }
  };
  checkCheckpointsAt(0);
  for (const e of storage.entries(0, size)) {
    if (e.seq !== range.size) {
      add({ kind: 'entry', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq} stored where ${range.size} was expected (gap)` });
    }
    const leaf = hashLeaf(e.bytes);
    if (!bytesEqual(leaf, e.leaf)) add({ kind: 'leaf', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: stored leaf hash does not match the entry bytes` });
    try {
      const entry = decodeEntry(e.bytes);
      if (entry.seq !== range.size) add({ kind: 'entry', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: bytes say seq ${entry.seq}` });
      if (entry.log !== opts.origin) add({ kind: 'entry', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: bytes name log ${JSON.stringify(entry.log)}` });
      if (entry.prev !== prev) add({ kind: 'link', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: prev does not match the leaf hash of entry ${e.seq - 1}` });
    } catch (err) {
      add({ kind: 'entry', seq: e.seq, code: codeOf(err), message: `entry ${e.seq}: ${(err as Error).message}` });
    }
    // Rebuild the tree from the recomputed leaf (not the stored one) and compare every node.
    const step = appendLeaf(range, leaf);
    for (const n of step.created) {
      nodes++;
      let stored: Uint8Array | undefined;
      try {
        stored = storage.node(n.level, n.index);
      } catch {
        stored = undefined;
      }
      if (!stored || !bytesEqual(stored, n.hash)) {
        add({ kind: 'node', seq: e.seq, code: 'ERR_VERIFY_PROOF', message: `tree node ${n.level}/${n.index} (completed by entry ${e.seq}) is ${stored ? 'wrong' : 'missing'}` });
      }
    }
    range = step.range;
    prev = toHex(leaf);
    checkCheckpointsAt(range.size);
  }
  for (; next < checkpoints.length; next++) {
    add({ kind: 'checkpoint', checkpoint: checkpoints[next].size, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint of size ${checkpoints[next].size} is beyond the ${size} stored entries` });
  }
  const last = checkpoints[checkpoints.length - 1];
  if (size > 0 && (!last || last.size !== size)) {
    add({ kind: 'size', code: 'ERR_VERIFY_CHECKPOINT', message: `the last checkpoint signs ${last?.size ?? 0} of ${size} entries` });
  }
  return { origin: opts.origin, size, root: toHex(rangeRoot(range)), entries: range.size, nodes, checkpoints: checkpoints.length, findings };
}

function checkCheckpoint(c: StoredCheckpoint, root: Uint8Array, opts: VerifyLogOptions, add: (f: Finding) => void): void {
  const at = c.size;
  if (!bytesEqual(c.root, root)) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: stored root differs from the root of the first ${at} entries` });
  try {
    const cp = openCheckpoint(c.note, opts.verifiers, { strict: true });
    if (cp.origin !== opts.origin) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed for origin ${JSON.stringify(cp.origin)}` });
    if (cp.size !== at) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed note says size ${cp.size}` });
    if (!bytesEqual(cp.root, root)) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed root differs from the root of the first ${at} entries` });
  } catch (err) {
    add({ kind: 'signature', checkpoint: at, code: codeOf(err), message: `checkpoint ${at}: ${(err as Error).message}` });
  }
}
