// Export the decisions of a log range as one segment of SEP-3004 audit records
// (audit-record-contract/1). Derived from the signed log only: the checkpoints are opened with the
// log's keys and every entry byte is re-hashed into their roots, in both passes. Portable.
import { bytesEqual, toHex } from '../canonical/index.js';
import { erasedDigests, readDecisionEntry } from '../entries/index.js';
import { VerificationError } from '../errors.js';
import { decodeEntry, extendRange, hashLeaf, openCompleteCheckpoint, rangeRoot, type NoteVerifier, type StoredCheckpoint } from '../log/index.js';
import { rangeBefore, type ExportPlan, type ExportSource } from './export.js';
import { CANONICAL_FORM_VERSION, sealRecord } from './sep3004-canonical.js';
import { recordOfDecision, type RecordContext, type Sep3004Record } from './sep3004-record.js';

export const SEP3004_FORMAT = 'io.vouch/sep3004-export';
export const SEP3004_VERSION = 1;

/** Which text vouch follows: the SEP's final PR commit, carried unchanged in substance into its successor home. */
export const CONTRACT = {
  name: 'Tamper-Evident Audit Record Contract',
  version: '1.0.0-draft.1',
  canonical_form_version: CANONICAL_FORM_VERSION,
  source: 'https://github.com/notboatanchor/audit-record-contract/blob/105f3e2d2dc63f0a284b222313f5dfbea305647a/spec/audit-record-contract.md',
  origin: 'MCP SEP-3004, https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3004 (closed 2026-09-22; final commit 9405ba2f)',
} as const;

/** §2.7: the structured attestation of what the records cannot show, the append-only store. */
export const ATTESTATION_MANIFEST = {
  storage_mechanism:
    'vouch append-only log: SQLite triggers refuse UPDATE and DELETE of entries and checkpoints; every entry is an RFC 9162 Merkle leaf ' +
    'under checkpoints signed with ML-DSA-65 and Ed25519 (C2SP tlog-checkpoint); each record carries its entry leaf hash and receipt',
  chain_algorithm: 'sha-256',
  canonical_form_version: CANONICAL_FORM_VERSION,
  verification_procedure_ref: 'vouch verify FILE (docs/verifying-sep3004.md); the contract vectors: https://github.com/notboatanchor/audit-record-contract/tree/main/vectors',
} as const;

export interface Sep3004Options {
  /** The log's note verifiers (its key history): the checkpoints must verify with them. */
  verifiers: NoteVerifier[];
  receipt: RecordContext['receipt'];
  tool: { name: string; version: string };
  created?: string;
}

export interface Sep3004Segment {
  origin: string;
  range: { from: number; to: number };
  checkpoint: { size: number; root: string; note: string };
  counts: { entries: number; byType: Record<string, number>; decisions: number; erased: number };
  /** §2.4: where the segment starts and that its head carries previous_hash null. */
  boundary: string;
  /** §2.9: the event_type values vouch records, and when. */
  emission: { required: string; event_types: string; blocking: string };
}

interface Verified {
  segment: Sep3004Segment;
  erasedBy: Map<string, number>;
}

const fail = (message: string): never => {
  throw new VerificationError('ERR_VERIFY_CHECKPOINT', message);
};

function openCheckpoint(cp: StoredCheckpoint, verifiers: NoteVerifier[], origin: string): void {
  const opened = openCompleteCheckpoint(cp.note, verifiers);
  if (opened.checkpoint.origin !== origin) fail(`checkpoint of size ${cp.size} names origin ${opened.checkpoint.origin}, not ${origin}`);
  if (opened.checkpoint.size !== cp.size || !bytesEqual(opened.checkpoint.root, cp.root)) fail(`the stored checkpoint of size ${cp.size} is not what its signed note says`);
}

/** Pass 1: open the checkpoints at `to` and at the newest size, re-hash [from, newest) into both, and find the erasures. */
async function verifyRange(source: ExportSource, plan: ExportPlan, opts: Sep3004Options): Promise<Verified> {
  const latest = await source.latestCheckpoint();
  if (!latest) return fail('the log has no signed checkpoint');
  for (const cp of [plan.checkpoint, latest]) openCheckpoint(cp, opts.verifiers, source.origin);
  let range = (await rangeBefore(source, plan.from)).range;
  const byType: Record<string, number> = {};
  const erasedBy = new Map<string, number>();
  const decisionInputs = new Map<string, number>(); // input digest -> decisions in the range that name it
  let decisions = 0;
  const checkRoot = (cp: StoredCheckpoint) => {
    if (!bytesEqual(rangeRoot(range), cp.root)) fail(`entries [${plan.from}, ${cp.size}) do not hash to the signed root of size ${cp.size}: the log was altered`);
  };
  for await (const { seq, bytes } of source.entries(plan.from, latest.size)) {
    if (seq === plan.to) checkRoot(plan.checkpoint);
    range = extendRange(range, [hashLeaf(bytes)]);
    const e = decodeEntry(bytes);
    if (seq < plan.to) byType[e.type] = (byType[e.type] ?? 0) + 1;
    const digest = (e as { input?: { digest?: unknown } }).input?.digest;
    if (seq < plan.to && e.type === 'decision' && typeof digest === 'string') decisionInputs.set(digest, (decisionInputs.get(digest) ?? 0) + 1);
    if (seq < plan.to && e.type === 'decision') decisions++;
    // An erasure comes after the decisions it erases, inside the range or after it: the first one counts.
    // One digest (on request) or a batch (retention): every reader goes through erasedDigests.
    if (e.type === 'erasure') for (const d of erasedDigests(e as { digest?: unknown; digests?: unknown })) if (decisionInputs.has(d) && !erasedBy.has(d)) erasedBy.set(d, seq);
  }
  if (range.size !== latest.size) fail(`the store holds ${range.size} of the ${latest.size} signed entries`);
  if (plan.to === latest.size) checkRoot(plan.checkpoint);
  checkRoot(latest);
  return {
    erasedBy,
    segment: {
      origin: source.origin,
      range: { from: plan.from, to: plan.to },
      checkpoint: { size: plan.checkpoint.size, root: toHex(plan.checkpoint.root), note: plan.checkpoint.note },
      counts: { entries: plan.to - plan.from, byType, decisions, erased: [...erasedBy.keys()].reduce((n, d) => n + decisionInputs.get(d)!, 0) },
      boundary: `one segment: the decision entries of ${source.origin} [${plan.from}, ${plan.to}), in seq order; its first record carries previous_hash null`,
      emission: {
        required: 'every decision entry in the range, allow and deny alike, exactly once',
        event_types: 'tool_call (tools/call, request phase), else <MCP event>:<phase>',
        blocking: 'vouch writes the entry before the decision leaves the service: a write that fails denies (docs/verifying-sep3004.md)',
      },
    },
  };
}

/** The export as text chunks: header members, then one record a line, then the end. Throws before or while writing on any mismatch. */
export async function* exportSep3004(source: ExportSource, plan: ExportPlan, opts: Sep3004Options): AsyncGenerator<string> {
  const { segment, erasedBy } = await verifyRange(source, plan, opts);
  const header = {
    format: SEP3004_FORMAT,
    version: SEP3004_VERSION,
    contract: CONTRACT,
    attestation_manifest: ATTESTATION_MANIFEST,
    segment,
    tool: opts.tool,
    ...(opts.created && { created: opts.created }),
  };
  const head = JSON.stringify(header);
  yield head.slice(0, -1) + ',\n"records":[';
  // Pass 2: the same bytes again, re-hashed, so what is written is what pass 1 checked.
  let range = (await rangeBefore(source, plan.from)).range;
  let previous: string | null = null;
  const ctx = { origin: source.origin, erasedBy, receipt: opts.receipt };
  for await (const { seq, bytes } of source.entries(plan.from, plan.to)) {
    const leaf = hashLeaf(bytes);
    range = extendRange(range, [leaf]);
    const e = decodeEntry(bytes);
    if (e.type !== 'decision') continue;
    const record: Sep3004Record = sealRecord(recordOfDecision(readDecisionEntry(e), { ...ctx, bytes, leaf }), previous);
    yield (previous === null ? '\n' : ',\n') + JSON.stringify(record);
    previous = record.event_hash;
  }
  if (range.size !== plan.to || !bytesEqual(rangeRoot(range), plan.checkpoint.root)) fail(`entries [${plan.from}, ${plan.to}) changed while they were exported`);
  yield `\n],\n"summary":${JSON.stringify({ records: segment.counts.decisions, last_event_hash: previous })}}\n`;
}
