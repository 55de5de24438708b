// `vouch verify BUNDLE` (DESIGN.md section 7), as a checklist: manifest, keys, checkpoint
// signature (bundle keys and, if given, a trusted key), the range before `from`, then one
// streaming pass over entries.jsonl: seq, leaf, prev link, origin, the root at `to`, documents,
// and a replay of every decision with a payload. Every finding is listed with its seq. Portable.
import { bytesEqual, toHex } from '../canonical/index.js';
import type { PostQuantumAlg, PublicKeyEntry } from '../crypto/index.js';
import { codeOf, publicMessage, type ErrorCode } from '../errors.js';
import { extendRange, GENESIS_PREV, hashLeaf, openSignedCheckpoint, parseCheckpoint, parseNote, rangeRoot, type Checkpoint, type CompactRange, type NoteVerifier, type PqRequirement, type VerifiedSignature } from '../log/index.js';
import { checkNewerCheckpoint, verifiersFor, type NewerCheckpoint } from '../receipt/index.js';
import { DocumentCheck, LinkBreaks, uniqueVerifiers } from './_bundle-checks.js';
import { readBundleKeys } from './_bundle-keys.js';
import { readEntry } from '../log/fast-entry.js';
import { readEntry as readTypedEntry, type TypedEntry } from '../entries/index.js';
import { PayloadCursor } from './_payload-cursor.js';
import { FILES, parseEntryLine, parseManifest, parseRangeFile, type BundleManifest } from './bundle-format.js';
import { ActivationTracker, HeadsCheck } from '../log/activation-check.js';
import { Replayer, type ReplayCounts, type UnreplayableReason } from './replay.js';
import { parseTimestampEvidence, type TimestampEvidence } from '../timestamp/evidence-format.js';
import type { CheckTimestampOptions, TimestampCheck } from '../timestamp/evidence.js';

export interface BundleReader {
  /** A small file's text (manifest, checkpoint, range, keys), or undefined when absent. */
  text(name: string): Promise<string | undefined>;
  /** The lines of a JSONL file, streamed, or undefined when the file is absent. */
  lines(name: string): AsyncIterable<string> | undefined;
  /** A file's bytes by its path in the bundle (documents), or undefined. */
  bytes(path: string): Promise<Uint8Array | undefined>;
  /** Files in the bundle that the format does not have (node-bundle-read.ts lists them): reported, never read. */
  unknown?: string[];
}

export type BundleCheck = 'manifest' | 'keys' | 'checkpoint' | 'signature' | 'trusted-key' | 'witnesses' | 'consistency' | 'range' | 'entry' | 'seq' | 'link' | 'root' | 'document' | 'payload' | 'replay' | 'files' | 'activation' | 'heads' | 'timestamp';

export interface BundleFinding {
  check: BundleCheck;
  seq?: number;
  code: ErrorCode;
  message: string;
}

export interface BundleReport {
  ok: boolean;
  origin?: string;
  range?: { from: number; to: number };
  entries: number;
  /** Whose keys the checkpoint signature was checked against. */
  keysFrom: 'bundle' | 'trusted key';
  signedBy: string[];
  /** Every checkpoint signature that verified: key name, algorithm, key id, and whose key it is. */
  signatures: (VerifiedSignature & { source: 'bundle key' | 'trusted key' })[];
  /** Accepted on classical signatures alone (`classicalOk`). */
  classicalOnly: boolean;
  /**
   * The post-quantum signature that met the requirement (the weaker of the key sets checked:
   * ML-DSA-44 when either set verified only ML-DSA-44); null when none did.
   */
  postQuantum: PostQuantumAlg | null;
  /** What was required: `any` (ML-DSA-44 or ML-DSA-65) or `ML-DSA-65`. */
  requirePq: PqRequirement;
  /** False when only keys that came inside the bundle vouched for it (no `trusted`). */
  keysPinned: boolean;
  /** Checked only against a newer checkpoint that extends the bundle's (`newer`). */
  truncation: 'checked' | 'not checked';
  /** With a newer checkpoint that could not be compared (no proof for these sizes): what to give. */
  truncationNote?: string;
  /**
   * clean: no findings, checkpoint verified under keys the auditor pinned. self-consistent, keys
   * not pinned: no findings, but anyone can re-sign a bundle with their own keys; `ok` only with
   * `trustBundleKeys`. findings: something failed.
   */
  verdict: BundleVerdict;
  findings: BundleFinding[];
  /** Not failures: decisions that could not be replayed for a reason the bundle is not to blame for. */
  notes: string[];
  replay?: ReplayCounts;
  /** With a witness policy (`--witness`, `--min-witnesses`): its verdict on the checkpoint's cosignatures. */
  witnessCheck?: BundleWitnessCheck;
  /** Each RFC 3161 stamp in timestamps.json, checked (issue 41); absent when the bundle carries none. */
  timestamps?: TimestampCheck[];
  /** The earliest verified stamp ("time-stamped by TSA at genTime"), or `not checked` without a pinned TSA certificate. */
  timestamped?: { status: 'verified'; tsa: string; genTime: string; size: number } | { status: 'not checked'; detail: string };
  truncated: boolean;
}

/** A witness policy's verdict on a checkpoint note (computed by witness/verify.ts, passed in, as for receipts). */
export interface BundleWitnessCheck {
  ok: boolean;
  detail: string;
}

export type BundleVerdict = 'clean' | 'self-consistent, keys not pinned' | 'findings';

export interface VerifyBundleOptions {
  /** Keys the auditor trusts (vkey or JWKS file): the checkpoint must verify under them too. */
  trusted?: { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] };
  /** Without `trusted`: accept the keys inside the bundle (`--trust-bundle-keys`); else not ok. */
  trustBundleKeys?: boolean;
  /** Accept checkpoints signed only with classical keys (`--classical-ok`); the report says so. */
  classicalOk?: boolean;
  /** `ML-DSA-65`: only an ML-DSA-65 signature meets the post-quantum requirement (`--require-pq mldsa65`). */
  requirePq?: PqRequirement;
  /** A newer checkpoint (and consistency proof) of the same log: checks the bundle was not cut. */
  newer?: NewerCheckpoint;
  /** Witness policy: the cosignatures on the bundle's checkpoint must satisfy it (a finding otherwise). */
  witnesses?: (note: string) => BundleWitnessCheck;
  /**
   * Checks one stamp of timestamps.json (timestamp/evidence.ts checkTimestamp with the pinned TSA
   * certificate, or none: "not checked"); passed in so this module stays free of pkijs.
   */
  checkTimestamp?: (ev: TimestampEvidence, o: Omit<CheckTimestampOptions, 'pinned'>) => Promise<TimestampCheck>;
  /** Default true: replay every decision whose payload is in the bundle. */
  replay?: boolean;
  engines?: Record<string, string>;
  maxFindings?: number;
  /** RFC 9162 leaf hash, SHA-256(0x00 || bytes); a native one (node:crypto) may drop in for speed. */
  hashLeaf?: (bytes: Uint8Array) => Uint8Array;
}

/** Leaves are added to the compact range in groups: one range check per group, not per leaf. */
const LEAF_GROUP = 1024;

/** Unreplayable reasons that say nothing against the bundle (erased, not exported, older engine). */
// A payload missing with no erasure recorded for it is a finding (issue 15 item 3), not benign.
const BENIGN: ReadonlySet<UnreplayableReason> = new Set(['payload erased', 'input rejected', 'engine version absent', 'remote interceptor']);

export async function verifyBundle(reader: BundleReader, opts: VerifyBundleOptions = {}): Promise<BundleReport> {
  const max = opts.maxFindings ?? 1000;
  const report = emptyBundleReport(opts);
  const add = (check: BundleCheck, code: ErrorCode, message: string, seq?: number) => {
    if (report.findings.length < max) report.findings.push({ check, code, message, ...(seq !== undefined && { seq }) });
    else report.truncated = true;
  };
  const done = () => finish(report, opts);

  for (const f of reader.unknown ?? []) add('files', 'ERR_INPUT', `${f} is not part of the bundle format: not read, and not covered by the checkpoint`);

  // 1. manifest
  let m: BundleManifest;
  try {
    m = parseManifest(JSON.parse((await reader.text(FILES.manifest)) ?? 'null'));
  } catch (e) {
    add('manifest', codeOf(e) === 'ERR_INTERNAL' ? 'ERR_INPUT' : codeOf(e), `manifest.json: ${e instanceof SyntaxError ? 'not JSON' : publicMessage(e)}`);
    return done();
  }
  const { from, to } = m.range;
  report.origin = m.origin;
  report.range = { from, to };

  // 2. keys shipped with the bundle
  const { keys, problems } = readBundleKeys(await reader.text(FILES.keys), m);
  for (const p of problems) add('keys', 'ERR_KEY_FORMAT', p);

  // 3. the checkpoint: signature, origin, size and root
  const note = (await reader.text(FILES.checkpoint)) ?? '';
  let signedRoot: Uint8Array | undefined;
  let signed: Checkpoint | undefined;
  try {
    const cp = parseCheckpoint(parseNote(note).text);
    signed = cp;
    if (cp.origin !== m.origin) add('checkpoint', 'ERR_VERIFY_CHECKPOINT', `checkpoint is for origin ${JSON.stringify(cp.origin)}, the manifest says ${JSON.stringify(m.origin)}`);
    if (cp.size !== to) add('checkpoint', 'ERR_VERIFY_CHECKPOINT', `checkpoint signs size ${cp.size}, the bundle ends at ${to}`);
    if (toHex(cp.root) !== m.checkpoint.root) add('checkpoint', 'ERR_VERIFY_CHECKPOINT', 'checkpoint root differs from the manifest');
    signedRoot = cp.root;
  } catch (e) {
    add('checkpoint', codeOf(e), `checkpoint: ${publicMessage(e)}`);
  }
  // The one note rule (log/note.ts): ML-DSA-44 or ML-DSA-65 (only ML-DSA-65 with requirePq)
  // required unless classicalOk, under either key set.
  report.requirePq = opts.requirePq ?? 'any';
  for (const [check, trust] of [['signature', keys], ['trusted-key', opts.trusted]] as const) {
    if (!trust) continue;
    const source = check === 'signature' ? 'bundle key' : 'trusted key';
    try {
      const opened = openSignedCheckpoint(note, uniqueVerifiers(verifiersFor(trust, note)), { classicalOk: opts.classicalOk, requirePq: opts.requirePq });
      report.signedBy.push(...[...new Set(opened.signatures.map((x) => x.name))].map((n) => `${n} (${source})`));
      report.signatures.push(...opened.signatures.map((x) => ({ ...x, source }) as const));
      if (opened.classicalOnly) report.classicalOnly = true;
      // The weaker answer of the two key sets is the one to report.
      if (opened.postQuantum && report.postQuantum !== 'ML-DSA-44') report.postQuantum = opened.postQuantum;
    } catch (e) {
      add(check, codeOf(e), `checkpoint signature ${check === 'signature' ? 'under the bundle keys' : 'under the trusted key'}: ${publicMessage(e)}`);
    }
  }
  // Cosignatures vouch for a checkpoint only when the log's own signature on it verified.
  if (opts.witnesses) {
    const logSigned = report.signatures.length > 0 && !report.findings.some((f) => f.check === 'signature' || f.check === 'trusted-key' || f.check === 'checkpoint');
    report.witnessCheck = logSigned ? opts.witnesses(note) : { ok: false, detail: "the bundle's checkpoint did not verify, so its cosignatures vouch for nothing" };
    if (!report.witnessCheck.ok) add('witnesses', 'ERR_VERIFY_CHECKPOINT', report.witnessCheck.detail);
  }
  if (opts.newer) {
    if (!signed) add('consistency', 'ERR_VERIFY_CHECKPOINT', "the bundle's checkpoint does not parse, so nothing can extend it");
    else {
      const n = checkNewerCheckpoint(note, signed, opts.newer, uniqueVerifiers(verifiersFor(opts.trusted ?? keys, opts.newer.note)), { classicalOk: opts.classicalOk, requirePq: opts.requirePq });
      if (n.notChecked !== undefined) report.truncationNote = n.notChecked;
      for (const c of n.checks) if (!c.ok) add('consistency', 'ERR_VERIFY_PROOF', `${c.name}: ${c.detail}${n.evidence ? ' (fork evidence: two signed checkpoints that cannot both be true)' : ''}`);
    }
  }

  // 3b. RFC 3161 stamps: each over a checkpoint of this log, tied to the bundle's tree by a consistency proof
  await checkStamps(await reader.text(FILES.timestamps), signed, keys, opts, report, (message) => add('timestamp', 'ERR_VERIFY_PROOF', message));

  // 4. where the range starts
  let range: CompactRange | undefined;
  let prev: string | undefined;
  try {
    const r = parseRangeFile(JSON.parse((await reader.text(FILES.range)) ?? 'null'));
    if (r.range.size !== from) add('range', 'ERR_VERIFY_PROOF', `range.json covers [0, ${r.range.size}), the bundle starts at ${from}`);
    if (from === 0 && r.prevLeaf !== GENESIS_PREV) add('range', 'ERR_VERIFY_PROOF', 'range.json: prevLeaf of a bundle starting at 0 must be 64 zeros');
    range = extendRange(r.range, []);
    prev = r.prevLeaf;
  } catch (e) {
    add('range', codeOf(e) === 'ERR_INTERNAL' ? 'ERR_INPUT' : codeOf(e), `range.json: ${e instanceof SyntaxError ? 'not JSON' : publicMessage(e)}`);
  }

  // 5. one pass over the entries
  const entries = reader.lines(FILES.entries);
  if (!entries) add('entry', 'ERR_VERIFY_ENTRY', 'entries.jsonl is missing');
  const payloadLines = m.payloads ? reader.lines(FILES.payloads) : undefined;
  if (m.payloads && !payloadLines) add('payload', 'ERR_INPUT', 'the manifest says payloads are included, payloads.jsonl is missing');
  const payloads = new PayloadCursor(payloadLines);
  const byType: Record<string, number> = {};
  const docs = new DocumentCheck(reader);
  const replayer = opts.replay !== false && m.payloads ? new Replayer({ payload: (d, s) => payloads.payload(d, s), erasedAt: (d, s) => payloads.erasedAt(d, s), document: (d) => docs.read(d) }, opts.engines) : undefined;
  // Issue 15 item 3: every decision's rules activated by an earlier policy entry (needs the log from entry 0).
  const activation = from === 0 ? new ActivationTracker() : undefined;
  // Issue 35: each entry's committed state (heads) is what the entries before it make.
  const heads = new HeadsCheck(from);
  const leafHash = opts.hashLeaf ?? hashLeaf;
  const leaves: Uint8Array[] = [];
  const links = new LinkBreaks(from, (seq, message) => add('link', 'ERR_VERIFY_ENTRY', message, seq));
  let expected = from;
  let lineNo = 0;
  let lastSeq = from - 1;
  try {
    for await (const line of entries ?? []) {
      if (line === '') continue;
      const at = expected++;
      lineNo++;
      let seq: number;
      let bytes: Uint8Array;
      try {
        ({ seq, bytes } = parseEntryLine(line));
      } catch (e) {
        add('entry', codeOf(e), `line for seq ${at}: ${publicMessage(e)}`, at);
        range = undefined; // the root can no longer be recomputed: said once, here
        leaves.length = 0;
        prev = undefined;
        lastSeq = at;
        continue;
      }
      if (seq !== at) add('seq', 'ERR_VERIFY_ENTRY', `entry line ${lineNo} has seq ${seq}, expected ${at} (missing, reordered or duplicated entries)`, seq);
      // Follow the line's own seq: one gap or swap is reported where it is, not on every later line.
      expected = seq + 1;
      lastSeq = seq;
      const leaf = leafHash(bytes);
      if (range) {
        leaves.push(leaf);
        if (leaves.length >= LEAF_GROUP) range = extendRange(range, leaves.splice(0));
      }
      try {
        const e = readEntry(bytes);
        if (e.seq !== seq) add('entry', 'ERR_VERIFY_ENTRY', `entry bytes say seq ${e.seq}, the line says ${seq}`, seq);
        if (e.log !== m.origin) add('entry', 'ERR_VERIFY_ENTRY', `entry names log ${JSON.stringify(e.log)}`, seq);
        if (prev !== undefined && e.prev !== prev) links.broken(seq);
        // Each entry through its type's reader (entries/): a field its writer would never write is a finding.
        let typed: TypedEntry | undefined;
        try {
          typed = readTypedEntry(e);
        } catch (err) {
          add('entry', codeOf(err), publicMessage(err), seq);
        }
        if (typed) docs.note(typed);
        const unactivated = activation?.visit(e);
        if (unactivated) add('activation', 'ERR_VERIFY_ENTRY', unactivated.message, seq);
        const wrongHeads = heads.visit(e);
        if (wrongHeads) add('heads', 'ERR_VERIFY_ENTRY', wrongHeads.message, seq);
        byType[e.type] = (byType[e.type] ?? 0) + 1;
        if (replayer) {
          const r = await replayer.replayEntry(seq, bytes, e); // non-decisions are only counted
          if (r && r.status === 'mismatch') add('replay', 'ERR_VERIFY_ENTRY', `replay mismatch at ${r.paths?.join(', ')}`, seq);
          else if (r && r.status === 'unreplayable' && !BENIGN.has(r.reason!)) add('replay', 'ERR_VERIFY_ENTRY', `unreplayable: ${r.reason}: ${r.detail}`, seq);
        }
      } catch (e) {
        add('entry', codeOf(e), publicMessage(e), seq);
      }
      prev = toHex(leaf);
      report.entries++;
    }
  } catch (e) {
    add('entry', codeOf(e), `entries.jsonl: ${publicMessage(e)}`);
  } finally {
    await replayer?.close();
  }

  links.end(lastSeq);
  if (range && leaves.length > 0) range = extendRange(range, leaves.splice(0));

  // 6. the root the checkpoint signs
  if (lineNo !== to - from || lastSeq !== to - 1) add('seq', 'ERR_VERIFY_ENTRY', `entries.jsonl holds ${lineNo} entries ending at seq ${lastSeq}, the bundle range [${from}, ${to}) needs ${to - from} ending at ${to - 1}`);
  if (range && signedRoot) {
    if (range.size !== to) add('root', 'ERR_VERIFY_PROOF', `the leaves extend the tree to size ${range.size}, not ${to}`);
    else if (!bytesEqual(rangeRoot(range), signedRoot)) {
      // With every link intact, only the last entry (no successor records its hash) or range.json can differ.
      const linksOk = !report.findings.some((f) => f.check === 'link' || f.check === 'seq' || f.check === 'entry');
      const last = to > from && linksOk ? to - 1 : undefined;
      add('root', 'ERR_VERIFY_PROOF', `the root of [0, ${to}) recomputed from range.json and the entries differs from the signed checkpoint${last !== undefined ? ` (links intact: entry ${last}, the last, or range.json was changed)` : ''}`, last);
    }
  }
  const counted = Object.keys({ ...byType, ...m.counts.byType }).filter((t) => (byType[t] ?? 0) !== (m.counts.byType[t] ?? 0));
  if (counted.length > 0) add('manifest', 'ERR_VERIFY_ENTRY', `manifest counts differ from the entries for type(s) ${counted.join(', ')}`);
  for (const p of payloads.problems) add('payload', 'ERR_INPUT', p.message, p.seq);
  for (const f of await docs.verify()) add('document', 'ERR_VERIFY_ENTRY', f);
  if (replayer) {
    report.replay = replayer.counts;
    for (const [reason, n] of Object.entries(replayer.counts.byReason)) if (BENIGN.has(reason as UnreplayableReason)) report.notes.push(`${n} decision(s) not replayed: ${reason}`);
  } else {
    report.notes.push(opts.replay === false ? 'replay skipped (--no-replay)' : 'no payloads in the bundle: decisions were not replayed (export with --payloads)');
  }
  if (!activation) report.notes.push('policy activation not checked: the bundle starts after entry 0');
  if (!opts.trusted) report.notes.push('the checkpoint was verified with keys that came inside the bundle itself: pass --key with a key you trust');
  return done();
}

async function checkStamps(text: string | undefined, tree: Checkpoint | undefined, keys: VerifyBundleOptions['trusted'], opts: VerifyBundleOptions, report: BundleReport, add: (message: string) => void): Promise<void> {
  // Stamps are optional evidence: a bundle without them (a service with no TSA, or the file removed)
  // is not made INVALID, but the verdict says the time was not checked, so a stripped file shows.
  if (text === undefined) {
    report.timestamped = { status: 'not checked', detail: 'not checked (no stamps in bundle)' };
    return;
  }
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return add(`${FILES.timestamps}: not JSON`);
  }
  if (!Array.isArray(list)) return add(`${FILES.timestamps}: must be a list of {checkpoint, proof, token}`);
  if (!tree) return add(`${FILES.timestamps}: the bundle's checkpoint does not parse, so no stamp can be tied to it`);
  const trust = opts.trusted ?? keys;
  if (!opts.checkTimestamp || !trust) {
    report.timestamped = { status: 'not checked', detail: `${list.length} TSA time-stamp(s) not checked (give --tsa-cert FILE)` };
    return;
  }
  report.timestamps = [];
  for (const [i, v] of list.entries()) {
    const issues: { path: string; message: string }[] = [];
    const ev = parseTimestampEvidence(v, `/${i}`, issues);
    if (!ev) {
      add(`${FILES.timestamps}: ${issues.map((x) => `${x.path} ${x.message}`).join('; ')}`);
      continue;
    }
    const c = await opts.checkTimestamp(ev, { verifiers: uniqueVerifiers(verifiersFor(trust, ev.checkpoint)), classicalOk: opts.classicalOk, covers: { origin: tree.origin, tree } });
    report.timestamps.push(c);
    if (!c.ok) add(`${FILES.timestamps} stamp ${i}: ${c.detail}`);
  }
  const verified = report.timestamps.filter((c) => c.status === 'verified').sort((a, b) => (a.genTime! < b.genTime! ? -1 : a.genTime! > b.genTime! ? 1 : 0));
  const notChecked = report.timestamps.find((c) => c.status === 'not checked');
  if (verified.length > 0) report.timestamped = { status: 'verified', tsa: verified[0].tsa!, genTime: verified[0].genTime!, size: verified[0].size! };
  else if (notChecked) report.timestamped = { status: 'not checked', detail: `${report.timestamps.length} TSA time-stamp(s) not checked (give --tsa-cert FILE, the TSA certificate you trust)` };
}

/** The report before anything is read (also what a bundle that cannot be opened reports). */
export function emptyBundleReport(opts: Pick<VerifyBundleOptions, 'trusted'> = {}): BundleReport {
  return {
    ok: false, entries: 0, keysFrom: opts.trusted ? 'trusted key' : 'bundle', signedBy: [], signatures: [], classicalOnly: false, postQuantum: null, requirePq: 'any',
    keysPinned: opts.trusted !== undefined, truncation: 'not checked', verdict: 'findings', findings: [], notes: [], truncated: false,
  };
}

/** The verdict: findings fail; without pinned keys the bundle is only self-consistent. */
function finish(report: BundleReport, opts: VerifyBundleOptions): BundleReport {
  const clean = report.findings.length === 0 && !report.truncated;
  report.verdict = !clean ? 'findings' : report.keysPinned ? 'clean' : 'self-consistent, keys not pinned';
  report.ok = clean && (report.keysPinned || opts.trustBundleKeys === true);
  report.truncation = clean && opts.newer && report.truncationNote === undefined ? 'checked' : 'not checked';
  if (report.truncation === 'checked' || !clean) delete report.truncationNote;
  return report;
}
