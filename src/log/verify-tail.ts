// verifyLog for the part of a log above a watermark, when the entries below it cannot be read
// (a pruned log whose archive is missing, docs/keeping-logs.md#restoring-a-pruned-log). The stored tree nodes
// that cover [0, from) stand in for the unread entries; each entry above is checked as verifyLog
// checks it and its leaf appended to them, so every signed checkpoint at or past `from` is checked
// against a root rebuilt from those nodes and the recomputed leaves. Not checked: the entries
// below `from`, the link from entry `from` to its predecessor, the checks over the whole history.
import { bytesEqual, toHex } from '../canonical/index.js';
import { codeOf } from '../errors.js';
import { readEntry } from './fast-entry.js';
import { appendLeaf, compactRangeAt, hashLeaf, rangeRoot, type CompactRange } from './merkle.js';
import { checkSignedTree } from './open-check.js';
import { readRows } from './read-rows.js';
import type { LogStorage } from './storage.js';
import { checkCheckpoint, type Finding, type LogReport, type VerifyLogOptions } from './verify-log.js';
import { VERIFY_PAGE } from './verify-pages.js';

/** The report over entries [from, size): `entries` counts those read, `checkpoints` those checked (size >= from). */
export function verifyLogTail(storage: LogStorage, from: number, opts: VerifyLogOptions): LogReport {
  const findings: Finding[] = [];
  const max = opts.maxFindings ?? 10_000;
  const add = (f: Finding) => void (findings.length < max && findings.push(f));
  const size = storage.size();
  const checkpoints = [...storage.checkpoints()].filter((c) => c.size >= from);
  let unsigned: LogReport['unsigned'];
  // The start-up check first, as verifyLog: it reads only the newest checkpoint's tree and entry.
  try {
    const opened = checkSignedTree(storage, opts.origin, opts.verifiers, opts.commitKeys?.length ? opts.commitKeys : undefined);
    if (opened.range.size > opened.signed) unsigned = { entries: opened.range.size - opened.signed, tag: opened.tailTagged ? 'valid' : 'not checked' };
  } catch (err) {
    add({ kind: 'checkpoint', checkpoint: checkpoints[checkpoints.length - 1]?.size, code: codeOf(err), message: `start-up check: ${(err as Error).message}` });
  }
  let range: CompactRange;
  try {
    range = compactRangeAt(from, storage);
  } catch (err) {
    add({ kind: 'node', seq: from, code: codeOf(err), message: `the stored tree over the first ${from} entries cannot be read: ${(err as Error).message}` });
    return { origin: opts.origin, size, root: '', entries: 0, nodes: 0, checkpoints: 0, ...(unsigned && { unsigned }), findings };
  }
  let next = 0;
  const checkpointsAt = (at: number) => {
    for (; next < checkpoints.length && checkpoints[next].size === at; next++) checkCheckpoint(checkpoints[next], rangeRoot(range), opts, add);
  };
  checkpointsAt(from);
  let prev: string | undefined; // entry `from`'s predecessor is below the watermark: its link is not checked
  let nodes = 0;
  for (let page = from; page < size; page += VERIFY_PAGE) {
    for (const e of readRows(storage, page, Math.min(size, page + VERIFY_PAGE))) {
      const seq = range.size;
      if (e.seq !== seq) {
        add({ kind: 'entry', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq} is missing (the next row is ${e.seq})` });
        return end();
      }
      const leaf = e.refused ? e.leaf : hashLeaf(e.bytes);
      if (e.refused) add({ kind: 'entry', seq, code: codeOf(e.refused), message: e.refused.message });
      else
        try {
          const entry = readEntry(e.bytes);
          if (entry.seq !== seq) add({ kind: 'entry', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: bytes say seq ${entry.seq}` });
          if (entry.log !== opts.origin) add({ kind: 'entry', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: bytes name log ${JSON.stringify(entry.log)}` });
          if (prev !== undefined && entry.prev !== prev) add({ kind: 'link', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: prev does not match the leaf hash of entry ${seq - 1}` });
        } catch (err) {
          add({ kind: 'entry', seq, code: codeOf(err), message: `entry ${seq}: ${(err as Error).message}` });
        }
      // Every node this leaf completes is compared with the stored one, the leaf node included.
      const appended = appendLeaf(range, leaf);
      for (const n of appended.created) {
        let h;
        try {
          h = storage.node(n.level, n.index);
        } catch {
          h = undefined;
        }
        nodes++;
        if (!h || !bytesEqual(h, n.hash)) add({ kind: n.level === 0 ? 'leaf' : 'node', seq, code: n.level === 0 ? 'ERR_VERIFY_ENTRY' : 'ERR_VERIFY_PROOF', message: n.level === 0 ? `entry ${seq}: stored leaf hash does not match its bytes` : `entry ${seq}: stored tree node ${n.level}/${n.index} does not match the rebuilt one` });
      }
      range = appended.range;
      prev = toHex(leaf);
      checkpointsAt(range.size);
    }
  }
  return end();

  function end(): LogReport {
    for (; next < checkpoints.length; next++) add({ kind: 'checkpoint', checkpoint: checkpoints[next].size, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint of size ${checkpoints[next].size} is beyond the ${range.size} entries read` });
    const last = checkpoints[checkpoints.length - 1];
    if (size > from && (!last || last.size !== size)) add({ kind: 'size', code: 'ERR_VERIFY_CHECKPOINT', message: `the last checkpoint signs ${last?.size ?? 0} of ${size} entries` });
    return { origin: opts.origin, size, root: toHex(rangeRoot(range)), entries: range.size - from, nodes, checkpoints: checkpoints.length, ...(unsigned && { unsigned }), findings };
  }
}
