// What `vouch log verify` reads and rebuilds, a page of entries at a time: the entries' stored bytes
// packed into one buffer (each after the 0x00 leaf prefix, so its leaf hash is one SHA-256 of a
// slice), their recomputed leaves, and what the tree rebuild over them found. Made in-line by
// verifyLog, or on a thread of its own (store/verify-thread.ts) while verifyLog checks the entries.
import { sha256, utf8 } from '../canonical/index.js';
import { scanCanonical } from './canonical-scan.js';
import { codeOf, type ErrorCode } from '../errors.js';
import { rebuildPage, type RebuildFinding, type RebuildState } from './leaf-rebuild.js';
import { rangeRoot, type Hash } from './merkle.js';
import { readRows } from './read-rows.js';
import type { LogStorage } from './storage.js';

/** Entries read per page. */
export const VERIFY_PAGE = 4096;

export interface VerifyPage {
  /** The entries' exact stored bytes, entry i at [offsets[i] + 1, offsets[i + 1]) after a 0x00 byte. */
  data: Uint8Array;
  /** count + 1 offsets into data. */
  offsets: Uint32Array;
  /** Each entry's leaf hash, recomputed from its bytes: 32 bytes an entry. */
  leaves: Uint8Array;
  /** The seq each row says it is, only when one differs from its place (a gap). */
  seqs?: number[];
  /** What the rebuild found, each before the entry at index `at` is checked. */
  findings: { at: number; f: RebuildFinding }[];
  /** The rebuilt root at each checkpoint size this page reaches. */
  roots: { size: number; root: Hash }[];
  /** Stored nodes compared. */
  nodes: number;
  /** The rebuilt root after this page. */
  root: Hash;
  /**
   * 1 where scanCanonical passed the entry's text already (markCanonical, on the reading thread when
   * the checks fall behind it), so the checks need not scan it again; 0 or absent: not scanned.
   */
  canonical?: Uint8Array;
  /** Rows the store refused to give back (a compact row that does not decode): entry `at` has no bytes, its stored leaf stood in. */
  refused?: { at: number; code: ErrorCode; message: string }[];
}

export interface PageOptions {
  /** Checkpoint sizes, ascending: the rebuilt root at each is reported. */
  checkpointSizes: number[];
  /** Stop listing rebuild findings after this many (verifyLog caps its own list too). */
  maxFindings: number;
  page?: number;
}

const HASH = 32;

/** Pages of entries [0, size) of `storage`, in order; a read that throws ends the pages with that error. */
export function* verifyPages(storage: LogStorage, size: number, opts: PageOptions): Generator<VerifyPage> {
  const state: RebuildState = { size: 0, hashes: [] };
  const sizes = opts.checkpointSizes;
  const step = opts.page ?? VERIFY_PAGE;
  let k = 0;
  while (k < sizes.length && sizes[k] <= 0) k++;
  let listed = 0;
  for (let from = 0; from < size; from += step) {
    const rows = readRows(storage, from, Math.min(size, from + step)); // a row the store refuses is a finding, not the end
    const n = rows.length;
    let total = 0;
    for (const r of rows) total += r.bytes.length + 1;
    const data = new Uint8Array(total);
    const offsets = new Uint32Array(n + 1);
    const leaves = new Uint8Array(HASH * n);
    let seqs: number[] | undefined;
    let refused: VerifyPage['refused'];
    for (let i = 0, o = 0; i < n; i++) {
      const r = rows[i];
      offsets[i] = o;
      data.set(r.bytes, o + 1); // data[o] stays 0x00: the leaf prefix
      o += r.bytes.length + 1;
      offsets[i + 1] = o;
      if (r.refused) (refused ??= []).push({ at: i, code: codeOf(r.refused), message: r.refused.message });
      if (r.seq !== state.size + i) (seqs ??= rows.map((x) => x.seq));
    }
    const findings: VerifyPage['findings'] = [];
    const roots: VerifyPage['roots'] = [];
    let at = 0;
    const nodes = rebuildPage(
      storage,
      state,
      rows, // their bytes are hashed from the page (leafAt), not from the rows
      (f) => {
        if (listed++ < opts.maxFindings) findings.push({ at, f });
      },
      {
        // RFC 9162's leaf hash, SHA-256(0x00 || bytes), over the slice that already holds the prefix.
        leafAt: (i) => sha256(data.subarray(offsets[i], offsets[i + 1])),
        onEntry: (_e, leaf) => {
          leaves.set(leaf, HASH * at);
          at++;
          while (k < sizes.length && sizes[k] === state.size) roots.push({ size: sizes[k++], root: rangeRoot(state) });
        },
      },
    );
    yield { data, offsets, leaves, ...(seqs && { seqs }), findings, roots, nodes, root: rangeRoot(state), ...(refused && { refused }) };
  }
}

/**
 * Runs the checks' canonical-form scan (canonical-scan.ts) over a page's entries where they are read
 * (log verify's reading thread, when the checks fall behind it): page.canonical marks each entry it
 * passed. An entry it cannot say (or whose bytes are not UTF-8) is left for the checks' full decode.
 */
export function markCanonical(page: VerifyPage): void {
  const n = page.offsets.length - 1;
  const marks = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    try {
      if (scanCanonical(utf8.decode(page.data.subarray(page.offsets[i] + 1, page.offsets[i + 1])))) marks[i] = 1;
    } catch {
      // not UTF-8: the checks' decode names it
    }
  }
  page.canonical = marks;
}
