// Everything `vouch verify RECEIPT` checks, as one portable function over already-read inputs
// (receipt, trusted keys, caller keys, a newer checkpoint), and the checklist as text. The CLI
// only reads files; a browser page can run the same checks on pasted text.
import type { PublicKeyEntry } from '../crypto/index.js';
import { toHex } from '../canonical/index.js';
import { parseNote, type Entry, type NoteVerifier } from '../log/index.js';
import { callerVerifier } from './caller-signature.js';
import { checkNewerCheckpoint, type ForkEvidence, type NewerCheck, type NewerCheckpoint } from './newer-checkpoint.js';
import { verifiersFor } from './trust.js';
import { verifyReceipt, type Check } from './verify.js';

export type ReportCheck = Check | NewerCheck | { name: 'checkpoint-signers'; ok: boolean; detail: string };

export interface FullReport {
  ok: boolean;
  checks: ReportCheck[];
  entry?: Entry;
  /** Two trusted checkpoints of one log that cannot both be true. */
  evidence?: ForkEvidence;
}

export interface FullVerifyInput {
  receipt: unknown;
  trust: { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] };
  origin?: string;
  /** When given, the receipt must carry a caller signature by one of these keys. */
  callerKeys?: PublicKeyEntry[];
  newer?: NewerCheckpoint;
}

export function verifyReceiptFully(input: FullVerifyInput): FullReport {
  const r = input.receipt as { checkpoint?: unknown; callerSignature?: unknown } | null;
  const note = typeof r?.checkpoint === 'string' ? r.checkpoint : '';
  const base = verifyReceipt(input.receipt, {
    verifiers: verifiersFor(input.trust, note),
    origin: input.origin,
    verifyCaller: input.callerKeys ? callerVerifier(input.callerKeys) : undefined,
  });
  const checks: ReportCheck[] = [...base.checks];
  if (base.checkpoint) checks.push(checkSigners(note, input.trust));
  if (input.callerKeys && base.entry && r?.callerSignature === undefined) {
    checks.push({ name: 'caller-signature', ok: false, detail: 'caller keys were given but the receipt carries no caller signature' });
  }
  let evidence: ForkEvidence | undefined;
  if (input.newer) {
    if (!base.checkpoint) checks.push({ name: 'consistency', ok: false, detail: "the receipt's own checkpoint did not verify, so nothing can extend it" });
    else {
      const n = checkNewerCheckpoint(note, base.checkpoint, input.newer, verifiersFor(input.trust, input.newer.note));
      checks.push(...n.checks);
      evidence = n.evidence;
    }
  }
  return { ok: checks.length > 0 && checks.every((c) => c.ok), checks, entry: base.entry, evidence };
}

/** One line per check (✓ / ✗, name, detail), then the verdict; fork evidence printed in full. */
export function formatChecklist(report: FullReport, label: string): string[] {
  const e = report.entry;
  const lines = [`${label}${e ? `: ${e.type} #${e.seq} of ${e.log}${typeof e.event === 'string' ? `, ${e.event}` : ''}${effectOf(e)}` : ''}`];
  for (const c of report.checks) lines.push(`  ${c.ok ? '\u2713' : '\u2717'} ${c.name.padEnd(20)} ${c.detail}`);
  const failed = report.checks.filter((c) => !c.ok);
  if (report.evidence) {
    lines.push('', `FORK EVIDENCE: ${report.evidence.reason}`, '--- checkpoint in the receipt ---', report.evidence.older.replace(/\n$/, ''), '--- newer checkpoint ---', report.evidence.newer.replace(/\n$/, ''), '---');
  }
  lines.push(report.ok ? 'VALID' : `INVALID: ${failed.length} check(s) failed: ${failed.map((c) => c.name).join(', ')}`);
  return lines;
}

/**
 * The signed-note rules skip a signature line from an unknown key, so a line whose key name or
 * key id was altered would pass unnoticed beside another valid line. vouch's checkpoints carry
 * only the log's own signatures, so here every line must come from a trusted key: an unknown
 * line means the note was altered, or KEYFILE lacks one of the log's keys.
 */
function checkSigners(note: string, trust: FullVerifyInput['trust']): ReportCheck {
  const known = new Set(verifiersFor(trust, note).map((v) => `${v.name}+${toHex(v.keyId)}`));
  const lines = parseNote(note).signatures.map((s) => `${s.name}+${toHex(s.keyId)}`);
  const unknown = lines.filter((l) => !known.has(l));
  if (unknown.length) return { name: 'checkpoint-signers', ok: false, detail: `signature line(s) from no trusted key: ${unknown.join(', ')} (the note was altered, or KEYFILE lacks one of the log's keys)` };
  return { name: 'checkpoint-signers', ok: true, detail: `all ${lines.length} signature line(s) are by trusted keys` };
}

function effectOf(e: Entry): string {
  const d = e.decision as { effect?: unknown } | undefined;
  return typeof d?.effect === 'string' ? ` (${d.effect})` : '';
}
