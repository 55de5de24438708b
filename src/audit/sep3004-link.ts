// The check only vouch can add to a SEP-3004 export: each record is what the signed log's entry at
// its seq says, and every decision of the range has one. A rewritten and re-sealed chain passes
// C-REC-1..7 (a hash chain with no anchor, contract §2.8); it fails here. Portable.
import { canonicalBytes, isPlainObject } from '../canonical/index.js';
import { erasedDigests, readDecisionEntry } from '../entries/index.js';
import { decodeEntry, hashLeaf } from '../log/index.js';
import { toHex } from '../canonical/index.js';
import { canonicalForm } from './sep3004-canonical.js';
import { recordOfDecision } from './sep3004-record.js';
import type { Sep3004Check, Sep3004Finding } from './sep3004-verify.js';

export interface LinkSource {
  origin: string;
  /** Entries of the signed prefix only (the caller opened the log through its checked checkpoint). */
  entries(from: number, to: number): AsyncIterable<{ seq: number; bytes: Uint8Array }>;
  signedSize: number;
  /** The receipt command and path the export names for `seq` (cli/commands/_export-sep3004.ts). */
  receipt(seq: number): { command: string; url: string };
}

const MAX_FINDINGS = 20;

export async function checkSep3004Links(doc: unknown, log: LinkSource): Promise<Sep3004Check> {
  const findings: Sep3004Finding[] = [];
  let omitted = 0;
  const add = (message: string, record?: number, event_id?: string) => {
    if (findings.length >= MAX_FINDINGS) return void omitted++;
    findings.push({ ...(record !== undefined && { record }), ...(event_id !== undefined && { event_id }), message });
  };
  const records: unknown[] = isPlainObject(doc) && Array.isArray(doc.records) ? doc.records : [];
  const segment = isPlainObject(doc) && isPlainObject(doc.segment) ? doc.segment : undefined;
  const range = segment && isPlainObject(segment.range) ? segment.range : undefined;
  const done = (detail: string): Sep3004Check => ({ id: 'vouch-link', title: 'records match the signed log', status: findings.length + omitted ? 'fail' : 'pass', detail, findings, omitted });
  if (!range || !Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || (range.from as number) > (range.to as number)) {
    add('the export names no range of a vouch log');
    return done('no range to check');
  }
  const [from, to] = [range.from as number, range.to as number];
  if (segment!.origin !== log.origin) add(`the export is of ${JSON.stringify(segment!.origin)}, this log is ${log.origin}`);
  if (to > log.signedSize) add(`the export reaches size ${to}; the log's signed size is ${log.signedSize}`);
  const bySeq = new Map<number, number>();
  records.forEach((r, i) => {
    const seq = isPlainObject(r) && isPlainObject(r.vouch) ? r.vouch.seq : undefined;
    if (typeof seq === 'number' && !bySeq.has(seq)) bySeq.set(seq, i);
  });
  // The `vouch` member is outside the contract's protected body: only this check sees an edit of it.
  // A claimed erasure must be an erasure entry of the signed log naming that digest after the record.
  const erasures = new Map<string, Set<number>>();
  for await (const { seq, bytes } of log.entries(from, log.signedSize)) {
    const e = decodeEntry(bytes);
    if (e.type === 'erasure') for (const d of erasedDigests(e as { digest?: unknown; digests?: unknown })) (erasures.get(d) ?? erasures.set(d, new Set()).get(d)!).add(seq);
  }
  const text = (v: unknown) => new TextDecoder().decode(canonicalBytes(v));
  let decisions = 0;
  for await (const { seq, bytes } of log.entries(from, Math.min(to, log.signedSize))) {
    const e = decodeEntry(bytes);
    if (e.type !== 'decision') continue;
    decisions++;
    const i = bySeq.get(seq);
    if (i === undefined) {
      add(`decision entry ${seq} has no record`);
      continue;
    }
    bySeq.delete(seq);
    const rec = records[i] as Record<string, unknown>;
    const id = typeof rec.event_id === 'string' ? rec.event_id : undefined;
    try {
      const leaf = hashLeaf(bytes);
      const want = recordOfDecision(readDecisionEntry(e), { origin: log.origin, bytes, leaf, erasedBy: new Map(), receipt: log.receipt });
      // The protected body, previous_hash aside (C-REC-4 checks the threading): exactly what the entry says.
      if (canonicalForm({ ...want, previous_hash: rec.previous_hash }) !== canonicalForm(rec)) add(`the record is not what entry ${seq} says`, i, id);
      if (isPlainObject(rec.vouch) && rec.vouch.leaf_hash !== toHex(leaf)) add(`vouch.leaf_hash is not entry ${seq}'s leaf hash`, i, id);
      const got = isPlainObject(rec.vouch) ? rec.vouch : {};
      const { input: gotInput, ...gotRest } = got;
      const { input: wantInput, ...wantRest } = want.vouch;
      // Origin, seq, leaf, receipt and chain: exactly the entry's (and this log's receipt address).
      if (text(gotRest) !== text(wantRest)) add(`vouch (origin, seq, receipt, chain) is not what entry ${seq} of ${log.origin} says`, i, id);
      // The input: the entry's digest; `erased` only as an erasure entry after it that names the digest (an export may predate one).
      const { erased, ...inputRest } = isPlainObject(gotInput) ? gotInput : {};
      const erasedSeq = isPlainObject(erased) ? erased.seq : undefined;
      if (text(inputRest) !== text(wantInput)) add(`vouch.input is not what entry ${seq} names`, i, id);
      else if (erased !== undefined && !(typeof erasedSeq === 'number' && erasedSeq > seq && 'digest' in wantInput && erasures.get(wantInput.digest)?.has(erasedSeq) && Object.keys(erased as object).length === 1)) {
        add(`vouch.input.erased names no erasure entry of ${log.origin} that removed this payload after entry ${seq}`, i, id);
      }
    } catch (err) {
      add(`cannot compare with entry ${seq}: ${(err as Error).message}`, i, id);
    }
  }
  for (const [seq, i] of bySeq) add(`names seq ${seq}, which is no decision entry of [${from}, ${to})`, i);
  return done(`each of the ${decisions} decision entries of ${log.origin} [${from}, ${to}), read through its signed checkpoint, has the record it says`);
}
