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
import { verifyPages, type PageOptions, type VerifyPage } from './verify-pages.js';
import { rangeRoot } from './merkle.js';
import type { NoteVerifier } from './note.js';
import { checkSignedTree } from './open-check.js';
import type { LogStorage, StoredCheckpoint } from './storage.js';

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
  const v = new LogVerifier(storage, opts);
  for (const page of verifyPages(storage, v.size, v.pageOptions)) v.page(page);
  return v.end();
}

/**
 * verifyLog over pages read and rebuilt elsewhere (store/verify-thread.ts: a thread of its own, with
 * its own connection to the same file), given in order: `pages` gets the size to read and the
 * checkpoint sizes to report roots at. The checks and the findings are verifyLog's, in its order.
 */
export async function verifyLogPages(storage: LogStorage, opts: VerifyLogOptions, pages: (size: number, page: PageOptions) => AsyncIterable<VerifyPage>): Promise<LogReport> {
  const v = new LogVerifier(storage, opts);
  for await (const page of pages(v.size, v.pageOptions)) v.page(page);
  return v.end();
}

/** The ordered checks over pages (verify-pages.ts): seq, origin and prev link of each entry, the entry checks, each checkpoint. */
class LogVerifier {
  readonly findings: Finding[] = [];
  readonly size: number;
  readonly pageOptions: PageOptions;
  private readonly max: number;
  private readonly checkpoints: StoredCheckpoint[];
  private next = 0; // index into checkpoints, which come ordered by size
  private unsigned: LogReport['unsigned'];
  private prev = GENESIS_PREV;
  private nodes = 0;
  private entries = 0;
  private root: Uint8Array = rangeRoot({ size: 0, hashes: [] });

  constructor(
    storage: LogStorage,
    private readonly opts: VerifyLogOptions,
  ) {
    this.max = opts.maxFindings ?? 10_000;
    this.size = storage.size();
    this.checkpoints = [...storage.checkpoints()];
    this.pageOptions = { checkpointSizes: this.checkpoints.map((c) => c.size), maxFindings: this.max };
    // First, the rule the service applies before it signs anything (open-check.ts): the newest
    // note verifies strictly with the log's keys and the stored tree reproduces it.
    try {
      const opened = checkSignedTree(storage, opts.origin, opts.verifiers, opts.commitKeys?.length ? opts.commitKeys : undefined);
      if (opened.range.size > opened.signed) this.unsigned = { entries: opened.range.size - opened.signed, tag: opened.tailTagged ? 'valid' : 'not checked' };
    } catch (err) {
      this.add({ kind: 'checkpoint', checkpoint: this.checkpoints[this.checkpoints.length - 1]?.size, code: codeOf(err), message: `start-up check: ${(err as Error).message}` });
    }
    this.checkpointsAt(0, [{ size: 0, root: this.root }]);
  }

  private add(f: Finding): void {
    if (this.findings.length < this.max) this.findings.push(f);
  }

  private addRule(f: RuleFinding | undefined): void {
    if (f) this.add({ kind: f.kind, seq: f.seq, code: 'ERR_VERIFY_ENTRY', message: f.message });
  }

  private checkpointsAt(treeSize: number, roots: { size: number; root: Uint8Array }[]): void {
    while (this.next < this.checkpoints.length && this.checkpoints[this.next].size === treeSize) {
      const root = roots.find((r) => r.size === treeSize)?.root ?? this.root;
      checkCheckpoint(this.checkpoints[this.next], root, this.opts, (f) => this.add(f));
      this.next++;
    }
  }

  /** The next page, in order. The tree was rebuilt from recomputed leaves (not the stored ones) and every stored node compared (leaf-rebuild.ts). */
  page(p: VerifyPage): void {
    const { origin, checks = [] } = this.opts;
    const n = p.offsets.length - 1;
    let fi = 0;
    for (let i = 0; i < n; i++) {
      for (; fi < p.findings.length && p.findings[fi].at === i; fi++) {
        const f = p.findings[fi].f;
        this.add({ ...f, code: f.kind === 'node' ? 'ERR_VERIFY_PROOF' : 'ERR_VERIFY_ENTRY' });
      }
      const at = this.entries++; // where this entry sits in the rebuilt tree
      const seq = p.seqs ? p.seqs[i] : at;
      // A row the store refused to give back (read-rows.ts): its finding, then on with the next row.
      const refused = p.refused?.find((r) => r.at === i);
      if (refused) this.add({ kind: 'entry', seq, code: refused.code, message: refused.message });
      // Each entry is judged on its own: whatever its bytes are, the finding names its seq and the walk goes on.
      else try {
        const entry = readEntry(p.data.subarray(p.offsets[i] + 1, p.offsets[i + 1]), p.canonical?.[i] === 1);
        if (entry.seq !== at) this.add({ kind: 'entry', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: bytes say seq ${entry.seq}` });
        if (entry.log !== origin) this.add({ kind: 'entry', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: bytes name log ${JSON.stringify(entry.log)}` });
        if (entry.prev !== this.prev) this.add({ kind: 'link', seq, code: 'ERR_VERIFY_ENTRY', message: `entry ${seq}: prev does not match the leaf hash of entry ${seq - 1}` });
        for (const c of checks) this.addRule(c.visit(entry));
      } catch (err) {
        this.add({ kind: 'entry', seq, code: codeOf(err), message: `entry ${seq}: ${(err as Error).message}` });
      }
      this.prev = toHex(p.leaves.subarray(32 * i, 32 * i + 32));
      this.checkpointsAt(this.entries, p.roots);
    }
    this.nodes += p.nodes;
    this.root = p.root;
  }

  end(): LogReport {
    const { checkpoints, size } = this;
    for (const c of this.opts.checks ?? []) for (const f of c.end?.() ?? []) this.addRule(f);
    for (; this.next < checkpoints.length; this.next++) {
      this.add({ kind: 'checkpoint', checkpoint: checkpoints[this.next].size, code: 'ERR_VERIFY_CHECKPOINT', message: `checkpoint of size ${checkpoints[this.next].size} is beyond the ${size} stored entries` });
    }
    const last = checkpoints[checkpoints.length - 1];
    if (size > 0 && (!last || last.size !== size)) {
      this.add({ kind: 'size', code: 'ERR_VERIFY_CHECKPOINT', message: `the last checkpoint signs ${last?.size ?? 0} of ${size} entries` });
    }
    return { origin: this.opts.origin, size, root: toHex(this.root), entries: this.entries, nodes: this.nodes, checkpoints: checkpoints.length, ...(this.unsigned && { unsigned: this.unsigned }), findings: this.findings };
  }
}

/** One stored checkpoint against the root rebuilt at its size: its root column, its signed note (verify-tail.ts too). */
export function checkCheckpoint(c: StoredCheckpoint, root: Uint8Array, opts: VerifyLogOptions, add: (f: Finding) => void): void {
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
