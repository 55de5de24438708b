// fsck for a whole log: every entry's bytes and leaf, every prev link, every stored tree node,
// every checkpoint's root and signature. Returns every finding with where it is, not the first.
import { bytesEqual, toHex } from '../canonical/index.js';
import { codeOf, type ErrorCode } from '../errors.js';
import type { EntryCheck, RuleFinding } from './activation-check.js';
import { openStrict } from './open-strict.js';
import type { VerifiedSignature } from './note.js';
// The bundle verifier's decoder (same contract as decodeEntry, several times faster). The import
// cycle through log/index.js is harmless: neither module uses the other at load time.
import { readEntry } from './fast-entry.js';
import { GENESIS_PREV } from './entry.js';
import { rebuildPage, type RebuildFinding, type RebuildState } from './leaf-rebuild.js';
import { rangeRoot } from './merkle.js';
import { readRows } from './read-rows.js';
import type { NoteVerifier } from './note.js';
import { checkSignedTree } from './open-check.js';
import type { LogStorage, StoredCheckpoint, StoredEntry } from './storage.js';

/** Entries read per page. */
const PAGE = 4096;

export type FindingKind = 'entry' | 'leaf' | 'link' | 'node' | 'checkpoint' | 'signature' | 'size' | 'activation' | 'payload' | 'key' | 'heads' | 'index' | 'archive';

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
  /**
   * Entries after the newest signed checkpoint: covered by no signature yet (a running service's
   * last batch, or a crash's). `tag`: whether their commit tag was checked against the signing
   * seed ("valid"; an invalid or missing one is a finding) or could not be ("not checked": no seed).
   */
  unsigned?: { entries: number; tag: 'valid' | 'not checked' };
  findings: Finding[];
}

export interface VerifyLogOptions {
  origin: string;
  verifiers: NoteVerifier[];
  /** RFC 9162 leaf hash; the CLI passes a native one (several times the pure-JS rate). */
  hashLeaf?: (bytes: Uint8Array) => Uint8Array;
  /** Stop listing after this many findings (the count is still exact for what was listed). */
  maxFindings?: number;
  /** Checks over the decoded entries, in order (activation-check.ts: rules activated, payloads stored or erased). */
  checks?: EntryCheck[];
  /** Called with the signatures that verified on each stored checkpoint (which keys the log verified with). */
  onSigned?: (signatures: VerifiedSignature[]) => void;
  /** Commit keys (commit-tag.ts) to check an unsigned tail's tag with; without, it is reported "not checked". */
  commitKeys?: Uint8Array[];
}

export function verifyLog(storage: LogStorage, opts: VerifyLogOptions): LogReport {
  const findings: Finding[] = [];
  const max = opts.maxFindings ?? 10_000;
  const add = (f: Finding) => {
    if (findings.length < max) findings.push(f);
  };
  const addRule = (f: RuleFinding | undefined) => f && add({ kind: f.kind, seq: f.seq, code: 'ERR_VERIFY_ENTRY', message: f.message });
  const size = storage.size();
  const checkpoints = [...storage.checkpoints()];
  let next = 0; // index into checkpoints, which come ordered by size
  const state: RebuildState = { size: 0, hashes: [] };
  let prev = GENESIS_PREV;
  let nodes = 0;

  // First, the rule the service applies before it signs anything (open-check.ts): the newest
  // note verifies strictly with the log's keys and the stored tree reproduces it.
  let unsigned: LogReport['unsigned'];
  try {
    const opened = checkSignedTree(storage, opts.origin, opts.verifiers, opts.commitKeys?.length ? opts.commitKeys : undefined);
    if (opened.range.size > opened.signed) unsigned = { entries: opened.range.size - opened.signed, tag: opened.tailTagged ? 'valid' : 'not checked' };
  } catch (err) {
    add({ kind: 'checkpoint', checkpoint: checkpoints[checkpoints.length - 1]?.size, code: codeOf(err), message: `start-up check: ${(err as Error).message}` });
  }
  const checkCheckpointsAt = (treeSize: number) => {
    while (next < checkpoints.length && checkpoints[next].size === treeSize) {
      checkCheckpoint(checkpoints[next], rangeRoot(state), opts, add);
      next++;
    }
  };
  checkCheckpointsAt(0);
  const onEntry = (e: StoredEntry, leaf: Uint8Array) => {
    const at = state.size - 1; // where this entry sits in the rebuilt tree
    // A row the store refused to decode (read-rows.ts): its finding, then on with the next row.
    if (e.refused) add({ kind: 'entry', seq: e.seq, code: codeOf(e.refused), message: e.refused.message });
    else try {
      const entry = readEntry(e.bytes);
      if (entry.seq !== at) add({ kind: 'entry', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: bytes say seq ${entry.seq}` });
      if (entry.log !== opts.origin) add({ kind: 'entry', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: bytes name log ${JSON.stringify(entry.log)}` });
      if (entry.prev !== prev) add({ kind: 'link', seq: e.seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${e.seq}: prev does not match the leaf hash of entry ${e.seq - 1}` });
      for (const c of opts.checks ?? []) addRule(c.visit(entry));
    } catch (err) {
      add({ kind: 'entry', seq: e.seq, code: codeOf(err), message: `entry ${e.seq}: ${(err as Error).message}` });
    }
    prev = toHex(leaf);
    checkCheckpointsAt(state.size);
  };
  // Pages read synchronously; the tree is rebuilt from recomputed leaves (not the stored ones)
  // and every stored node compared, read a level range at a time (leaf-rebuild.ts).
  const report = (f: RebuildFinding) => add({ ...f, code: f.kind === 'node' ? 'ERR_VERIFY_PROOF' : 'ERR_VERIFY_ENTRY' });
  for (let from = 0; from < size; from += PAGE) {
    const page = readRows(storage, from, Math.min(size, from + PAGE)); // a row the store refuses is a finding, not the end
    nodes += rebuildPage(storage, state, page, report, { hashLeaf: opts.hashLeaf, onEntry });
  }
  for (const c of opts.checks ?? []) for (const f of c.end?.() ?? []) addRule(f);
  for (; next < checkpoints.length; next++) {
    add({ kind: 'checkpoint', checkpoint: checkpoints[next].size, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint of size ${checkpoints[next].size} is beyond the ${size} stored entries` });
  }
  const last = checkpoints[checkpoints.length - 1];
  if (size > 0 && (!last || last.size !== size)) {
    add({ kind: 'size', code: 'ERR_VERIFY_CHECKPOINT', message: `the last checkpoint signs ${last?.size ?? 0} of ${size} entries` });
  }
  return { origin: opts.origin, size, root: toHex(rangeRoot(state)), entries: state.size, nodes, checkpoints: checkpoints.length, ...(unsigned && { unsigned }), findings };
}

function checkCheckpoint(c: StoredCheckpoint, root: Uint8Array, opts: VerifyLogOptions, add: (f: Finding) => void): void {
  const at = c.size;
  if (!bytesEqual(c.root, root)) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: stored root differs from the root of the first ${at} entries` });
  try {
    const opened = openStrict(c.note, opts.verifiers);
    const cp = opened.checkpoint;
    opts.onSigned?.(opened.signatures);
    if (cp.origin !== opts.origin) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed for origin ${JSON.stringify(cp.origin)}` });
    if (cp.size !== at) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed note says size ${cp.size}` });
    if (!bytesEqual(cp.root, root)) add({ kind: 'checkpoint', checkpoint: at, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint ${at}: signed root differs from the root of the first ${at} entries` });
  } catch (err) {
    add({ kind: 'signature', checkpoint: at, code: codeOf(err), message: `checkpoint ${at}: ${(err as Error).message}` });
  }
}
