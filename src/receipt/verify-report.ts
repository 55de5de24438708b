// Everything `vouch verify RECEIPT` checks, as one portable function over already-read inputs
// (receipt, trusted keys, caller keys, a newer checkpoint), and the checklist as text. The CLI
// only reads files; a browser page can run the same checks on pasted text.
import { ED25519_SIGNATURE_BYTES, MLDSA44_SIGNATURE_BYTES, MLDSA65_SIGNATURE_BYTES, type PostQuantumAlg, type PublicKeyEntry, type SignatureAlg } from '../crypto/index.js';
import { toHex } from '../canonical/index.js';
import { describeSignature, parseCheckpoint, parseNote, pqAlgsFor, type Entry, type NoteVerifier, type PqRequirement, type VerifiedSignature } from '../log/index.js';
import type { TimestampCheck } from '../timestamp/index.js';
import { callerVerifier } from './caller-signature.js';
import { checkNewerCheckpoint, type ForkEvidence, type NewerCheck, type NewerCheckpoint } from './newer-checkpoint.js';
import { verifiersFor } from './trust.js';
import { verifyReceipt, type Check } from './verify.js';
import { summarizeEntry } from './entry-summary.js';

export type ReportCheck = Check | NewerCheck | { name: 'checkpoint-signers'; ok: boolean; detail: string } | WitnessCheck | TimestampCheck;

/** Witness cosignatures over the receipt's checkpoint (computed by witness/verify.ts, passed in). */
export interface WitnessCheck {
  name: 'witnesses';
  ok: boolean;
  detail: string;
  /** The newest valid cosignature's time by a trusted witness (ISO 8601), when any verified. */
  latest?: string;
}

/**
 * How far the witnesses are behind (issue 35): the newest checkpoint a trusted witness cosigned,
 * of those the verifier holds, against the newest one it holds. Entries past `size` are vouched
 * for by the log alone: a clean cut of them is what only a witness would show.
 */
export interface WitnessLag {
  /** Size of the newest cosigned checkpoint. */
  size: number;
  /** The newest checkpoint held: the newer one (`--checkpoint`) when it extends the receipt's, else the receipt's. */
  checkpointSize: number;
  /** checkpointSize - size. */
  behind: number;
  /** Time of the newest cosignature on that checkpoint, ISO 8601. */
  time: string;
}

/**
 * Lengths (after the key id) of tlog-cosignature lines: timestamp + Ed25519 (0x04) or ML-DSA-44
 * (0x06). A 0x06 line under the log's origin is the log's own ML-DSA-44 signature, not a witness's.
 */
const COSIGNATURE_LENGTHS = new Set([8 + ED25519_SIGNATURE_BYTES, 8 + MLDSA44_SIGNATURE_BYTES]);

export interface FullReport {
  ok: boolean;
  checks: ReportCheck[];
  entry?: Entry;
  /** Two trusted checkpoints of one log that cannot both be true. */
  evidence?: ForkEvidence;
  /** The receipt checkpoint's signatures that verified: key name, algorithm, key id. */
  signatures: VerifiedSignature[];
  /** Accepted on classical signatures alone (`--classical-ok`). */
  classicalOnly: boolean;
  /** The post-quantum signature that met the requirement: ML-DSA-65 when both verified. */
  postQuantum?: PostQuantumAlg;
  /** What was required: `any` (ML-DSA-44 or ML-DSA-65) or `ML-DSA-65` (`--require-pq mldsa65`). */
  requirePq: PqRequirement;
  /**
   * Whether a cut of the log's end could have been seen: only a newer checkpoint that extends
   * the receipt's (`--checkpoint`) shows the receipt's entry was not dropped and re-issued later.
   */
  truncation: 'checked' | 'not checked';
  /** With --checkpoint given but not enough to compare the trees: what to give (a missing input is "not checked", never a failed check). */
  truncationNote?: string;
  /** With a witness policy and a trusted cosignature on a checkpoint held: how far behind the witnesses are. */
  witnessed?: WitnessLag;
  /** The receipt's RFC 3161 time-stamp: verified against the pinned TSA certificate, or not checked (none pinned). */
  timestamped?: { status: 'verified' | 'not checked'; tsa?: string; genTime?: string; size?: number };
}

export interface FullVerifyInput {
  receipt: unknown;
  trust: { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] };
  origin?: string;
  /** When given, the receipt must carry a caller signature by one of these keys. */
  callerKeys?: PublicKeyEntry[];
  newer?: NewerCheckpoint;
  /** Accept checkpoints signed only with classical keys (`--classical-ok`); the report says so. */
  classicalOk?: boolean;
  /** `ML-DSA-65`: only an ML-DSA-65 signature meets the post-quantum requirement (`--require-pq mldsa65`). */
  requirePq?: PqRequirement;
  /** Witness policy (`--witness`, `--min-witnesses`): checks the cosignatures on the receipt's checkpoint. */
  witnesses?: (note: string) => WitnessCheck;
  /** The same trusted witnesses' newest valid cosignature time on another note (the newer checkpoint), or undefined. */
  cosignedAt?: (note: string) => string | undefined;
  /** The receipt's time-stamp, checked beforehand (timestamp/evidence.ts checkTimestamp: it is async, this is not). */
  timestamp?: TimestampCheck;
}

export function verifyReceiptFully(input: FullVerifyInput): FullReport {
  const r = input.receipt as { checkpoint?: unknown; callerSignature?: unknown } | null;
  const note = typeof r?.checkpoint === 'string' ? r.checkpoint : '';
  const base = verifyReceipt(input.receipt, {
    verifiers: verifiersFor(input.trust, note),
    origin: input.origin,
    verifyCaller: input.callerKeys ? callerVerifier(input.callerKeys) : undefined,
    classicalOk: input.classicalOk,
    requirePq: input.requirePq,
  });
  const checks: ReportCheck[] = [...base.checks];
  if (base.checkpoint) checks.push(checkSigners(note, input.trust));
  if (input.callerKeys && base.entry && r?.callerSignature === undefined) {
    checks.push({ name: 'caller-signature', ok: false, detail: 'caller keys were given but the receipt carries no caller signature' });
  }
  const witnessCheck = input.witnesses && (base.checkpoint ? input.witnesses(note) : undefined);
  if (input.witnesses) checks.push(witnessCheck ?? { name: 'witnesses', ok: false, detail: "the receipt's own checkpoint did not verify, so its cosignatures vouch for nothing" });
  let evidence: ForkEvidence | undefined;
  let newer: { size: number; time?: string } | undefined;
  let truncationNote: string | undefined;
  if (input.newer) {
    if (!base.checkpoint) checks.push({ name: 'consistency', ok: false, detail: "the receipt's own checkpoint did not verify, so nothing can extend it" });
    else {
      const n = checkNewerCheckpoint(note, base.checkpoint, input.newer, verifiersFor(input.trust, input.newer.note), { classicalOk: input.classicalOk, requirePq: input.requirePq });
      checks.push(...n.checks);
      evidence = n.evidence;
      truncationNote = n.notChecked;
      if (n.extends) newer = { size: n.extends.size, time: input.witnesses ? input.cosignedAt?.(input.newer.note) : undefined };
    }
  }
  if (input.timestamp) checks.push(input.timestamp);
  const ok = checks.length > 0 && checks.every((c) => c.ok);
  const ts = input.timestamp;
  const timestamped = ts && ts.status !== 'invalid' ? { status: ts.status, ...(ts.tsa !== undefined && { tsa: ts.tsa, genTime: ts.genTime }), size: ts.size } : undefined;
  const witnessed = base.checkpoint && witnessLag({ size: base.checkpoint.size, time: witnessCheck?.ok ? witnessCheck.latest : undefined }, newer);
  const truncation = input.newer && ok && truncationNote === undefined ? 'checked' : 'not checked';
  return { ok, checks, entry: base.entry, evidence, signatures: base.signatures, classicalOnly: base.classicalOnly, ...(base.postQuantum && { postQuantum: base.postQuantum }), requirePq: input.requirePq ?? 'any', truncation, ...(truncation === 'not checked' && truncationNote !== undefined && { truncationNote }), ...(witnessed && { witnessed }), ...(timestamped && { timestamped }) };
}

/** "time-stamped by CN=... at 2026-..." or "TSA time-stamp: not checked (no --tsa-cert)". */
export function describeTimestamp(t: NonNullable<FullReport['timestamped']>): string {
  return t.status === 'verified' ? `time-stamped by ${t.tsa} at ${t.genTime}` : 'TSA time-stamp: not checked (no --tsa-cert)';
}

/** The newest cosigned of the checkpoints held (the receipt's, and the newer one that extends it). */
function witnessLag(receipt: { size: number; time?: string }, newer?: { size: number; time?: string }): WitnessLag | undefined {
  const held = newer ? [receipt, newer] : [receipt];
  const checkpointSize = Math.max(...held.map((h) => h.size));
  const cosigned = held.filter((h) => h.time !== undefined).sort((a, b) => b.size - a.size)[0];
  return cosigned && { size: cosigned.size, checkpointSize, behind: checkpointSize - cosigned.size, time: cosigned.time! };
}

/** "newest witness cosignature covers size 7 (3 entries behind the checkpoint) at 2026-...". */
export function describeWitnessLag(w: WitnessLag): string {
  return `newest witness cosignature covers size ${w.size} (${w.behind} ${w.behind === 1 ? 'entry' : 'entries'} behind the checkpoint${w.behind ? ` of size ${w.checkpointSize}` : ''}) at ${w.time}`;
}

/** The verdict line: VALID or INVALID, what signed, and what was not checked. */
export function verdictOf(report: FullReport): string {
  const failed = report.checks.filter((c) => !c.ok);
  if (!report.ok) return `INVALID: ${failed.length} check(s) failed: ${failed.map((c) => c.name).join(', ')}`;
  const algs = [...new Set(report.signatures.map((s) => s.alg))].join(' + ');
  const witnessed = report.witnessed ? `; ${describeWitnessLag(report.witnessed)}` : '';
  const stamped = report.timestamped ? `; ${describeTimestamp(report.timestamped)}` : '';
  return `VALID (${algs}; ${describePostQuantum(report)}; truncation: ${report.truncation}${witnessed}${stamped})`;
}

/** "post-quantum: ML-DSA-44 (ML-DSA-44 or ML-DSA-65 required)": which signature met which requirement. */
export function describePostQuantum(r: { classicalOnly: boolean; postQuantum?: PostQuantumAlg; requirePq?: PqRequirement }): string {
  const required = `${pqAlgsFor(r.requirePq).join(' or ')} required`;
  if (r.classicalOnly || !r.postQuantum) return `post-quantum: none, classical signatures only (${required}), accepted by --classical-ok`;
  return `post-quantum: ${r.postQuantum} (${required})`;
}

/** What the JSON verdicts (CLI --json, the console) carry beside the checks. */
export function verdictFields(report: FullReport): { ok: boolean; verdict: string; signatures: VerifiedSignature[]; classicalOnly: boolean; postQuantum: PostQuantumAlg | null; requirePq: PqRequirement; truncation: FullReport['truncation']; truncationNote?: string; witnessed?: WitnessLag; timestamped?: FullReport['timestamped'] } {
  return { ok: report.ok, verdict: verdictOf(report), signatures: report.signatures, classicalOnly: report.classicalOnly, postQuantum: report.postQuantum ?? null, requirePq: report.requirePq, truncation: report.truncation, ...(report.truncationNote !== undefined && { truncationNote: report.truncationNote }), ...(report.witnessed && { witnessed: report.witnessed }), ...(report.timestamped && { timestamped: report.timestamped }) };
}

/** The checklist's first line: what was checked ("receipt: decision #5 of vouch.local/default, tools/call (deny)"). */
export function checklistTitle(label: string, e: Entry | undefined): string {
  return `${label}${e ? `: ${e.type} #${e.seq} of ${e.log}${typeof e.event === 'string' ? `, ${e.event}` : ''}${effectOf(e)}` : ''}`;
}

/** The line of a valid receipt checked with no newer checkpoint; `how`: how this verifier is given one (the console says it its own way). */
export function truncationNotChecked(how: string): string {
  return `truncation: not checked (no newer checkpoint: ${how} to prove the log still holds this entry)`;
}

/** One line per check (✓ / ✗, name, detail), then the verdict; fork evidence printed in full. */
export function formatChecklist(report: FullReport, label: string): string[] {
  const e = report.entry;
  const lines = [checklistTitle(label, e)];
  // What was decided, from the signed entry: said to be unproven when any check failed.
  if (e) lines.push(`  ${summarizeEntry(e).text}${report.ok ? '' : '  (NOT PROVEN: see the failed checks)'}`);
  for (const c of report.checks) lines.push(`  ${c.ok ? '\u2713' : '\u2717'} ${c.name.padEnd(20)} ${c.detail}`);
  if (report.evidence) {
    lines.push('', `FORK EVIDENCE: ${report.evidence.reason}`, '--- checkpoint in the receipt ---', report.evidence.older.replace(/\n$/, ''), '--- newer checkpoint ---', report.evidence.newer.replace(/\n$/, ''), '---');
  }
  if (report.ok) {
    lines.push(`  signed by: ${report.signatures.map(describeSignature).join(', ')}`);
    if (report.truncation === 'not checked') lines.push(report.truncationNote !== undefined ? `  truncation: not checked: ${report.truncationNote}` : `  ${truncationNotChecked('give --checkpoint')}`);
  }
  lines.push(verdictOf(report));
  return lines;
}

/**
 * The signed-note rules skip a signature line from an unknown key. vouch's checkpoints carry only
 * the log's own signatures, so a line no trusted key made is reported. It fails when KEYFILE
 * holds a key of the line's algorithm (told by the signature's length): that key should have
 * made it, so its name or key id was altered. A line of an algorithm KEYFILE holds no key of
 * (KEYFILE holds only the ML-DSA-65 key: the Ed25519 line) is named and not relied on; whether
 * what did verify is enough is the note rule's business (checkpoint-signature).
 */
function checkSigners(note: string, trust: FullVerifyInput['trust']): ReportCheck {
  const trusted = verifiersFor(trust, note);
  const known = new Set(trusted.map((v) => `${v.name}+${toHex(v.keyId)}`));
  const held = new Set(trusted.map((v) => v.alg));
  const parsed = parseNote(note);
  let origin: string | undefined;
  try {
    origin = parseCheckpoint(parsed.text).origin;
  } catch {
    origin = undefined;
  }
  // Witness cosignature lines (tlog-cosignature) are not the log's signatures: the witnesses check
  // weighs them. The log's own ML-DSA-44 line has a cosignature's form, under the log's origin.
  const own = (s: { name: string; signature: Uint8Array }) => s.name === origin && s.signature.length === 8 + MLDSA44_SIGNATURE_BYTES;
  const lines = parsed.signatures.filter((s) => own(s) || !COSIGNATURE_LENGTHS.has(s.signature.length)).map((s) => ({ label: `${s.name}+${toHex(s.keyId)}`, alg: own(s) ? ('ML-DSA-44' as const) : algOfLength(s.signature.length) }));
  const unknown = lines.filter((l) => !known.has(l.label));
  if (unknown.length === 0) return { name: 'checkpoint-signers', ok: true, detail: `all ${lines.length} signature line(s) are by trusted keys` };
  const altered = unknown.filter((l) => l.alg === undefined || held.has(l.alg));
  if (altered.length === 0) {
    return { name: 'checkpoint-signers', ok: true, detail: `${lines.length - unknown.length} of ${lines.length} signature line(s) by trusted keys; not relied on (KEYFILE holds no ${[...new Set(unknown.map((l) => l.alg))].join('/')} key): ${unknown.map((l) => l.label).join(', ')}` };
  }
  return { name: 'checkpoint-signers', ok: false, detail: `signature line(s) from no trusted key: ${altered.map((l) => l.label).join(', ')} (the note was altered, or KEYFILE lacks one of the log's keys)` };
}

function algOfLength(n: number): SignatureAlg | undefined {
  return n === ED25519_SIGNATURE_BYTES ? 'Ed25519' : n === MLDSA65_SIGNATURE_BYTES ? 'ML-DSA-65' : undefined;
}

function effectOf(e: Entry): string {
  const d = e.decision as { effect?: unknown } | undefined;
  return typeof d?.effect === 'string' ? ` (${d.effect})` : '';
}
