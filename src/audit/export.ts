// Export an audit bundle (DESIGN.md section 7) through a sink: a directory, a .tar.gz file or an
// HTTP stream. Two streaming passes over the entries (sizes and references first, then bytes),
// so tar headers know each size up front and memory never holds the entries. Portable.
import { fromHex, isDigest, toHex, utf8, type Digest } from '../canonical/index.js';
import type { Jwks } from '../crypto/index.js';
import { erasedDigests } from '../entries/index.js';
import { InputError, VouchError } from '../errors.js';
import { checkExtends, extendRange, GENESIS_PREV, hashLeaf, parseCheckpoint, parseNote, parseVkey, type Hash, type StoredCheckpoint } from '../log/index.js';
import type { TimestampEvidence } from '../timestamp/evidence-format.js';
import { recordedEnrichers } from './_enrichments.js';
import { bundleReadme } from './_readme.js';
import {
  BUNDLE_FORMAT, BUNDLE_VERSION, documentPath, entryLineLength, FILES, formatEntryLine, formatPayloadLine, formatRangeFile, payloadLineLength,
  type BundleManifest, type KeyRecord,
} from './bundle-format.js';

export interface ExportSource {
  origin: string;
  size(): Promise<number>;
  entry(seq: number): Promise<Uint8Array | undefined>;
  entries(from: number, to: number): AsyncIterable<{ seq: number; bytes: Uint8Array }>;
  checkpointAt(size: number): Promise<StoredCheckpoint | undefined>;
  latestCheckpoint(): Promise<StoredCheckpoint | undefined>;
  inclusionProof(seq: number, size: number): Promise<Hash[]>;
  payload(digest: Digest): Promise<Uint8Array | undefined>;
  document(digest: Digest): Promise<{ kind: 'chain' | 'policy'; bytes: Uint8Array } | undefined>;
}

export interface BundleSink {
  /** One file of exactly `size` bytes. */
  file(name: string, size: number, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void>;
}

export interface ExportOptions {
  from?: number;
  to?: number;
  payloads?: boolean;
  keys: { jwks: Jwks; vkeys: string[] };
  tool: { name: string; version: string };
  /** RFC 3339, from the caller's clock (the core reads none). */
  created?: string;
  /**
   * The RFC 3161 stamps of checkpoints of sizes in (from, to], each with a consistency proof from
   * its size to `to` (timestamps.json); absent or empty: no file. Node callers read timestamps.db.
   */
  timestamps?: (from: number, to: number) => Promise<TimestampEvidence[]>;
}

export interface ExportPlan {
  from: number;
  to: number;
  checkpoint: StoredCheckpoint;
  requested?: { from?: number; to?: number };
  notes: string[];
}

/** How far past a requested size to look for a checkpoint before using the latest (a batch is at most this big by default). */
const MAX_PROBE = 4096;
const CHUNK = 1 << 16;

/** Pick the range and its signed checkpoint; throws before anything is written. */
export async function planExport(source: ExportSource, opts: { from?: number; to?: number }): Promise<ExportPlan> {
  const latest = await source.latestCheckpoint();
  if (!latest) throw new VouchError('ERR_NOT_FOUND', 'the log has no signed checkpoint yet: nothing to export');
  const from = opts.from ?? 0;
  const want = opts.to ?? latest.size;
  if (from > want) throw new InputError('ERR_INPUT', `--from ${from} is after --to ${want}`, [{ path: '/from', message: 'after to' }]);
  if (want > latest.size) throw new InputError('ERR_INPUT', `--to ${want} is beyond the latest checkpoint (size ${latest.size})`, [{ path: '/to', message: 'beyond the log' }]);
  const notes: string[] = [];
  let checkpoint = await source.checkpointAt(want);
  for (let s = want + 1; !checkpoint && s <= Math.min(latest.size, want + MAX_PROBE); s++) checkpoint = await source.checkpointAt(s);
  checkpoint ??= latest;
  if (checkpoint.size !== want) notes.push(`no checkpoint was signed at size ${want}; the bundle extends to the next signed checkpoint, size ${checkpoint.size}`);
  const requested = checkpoint.size !== want || opts.from !== undefined || opts.to !== undefined ? { ...(opts.from !== undefined && { from: opts.from }), ...(opts.to !== undefined && { to: opts.to }) } : undefined;
  return { from, to: checkpoint.size, checkpoint, notes, ...(requested && Object.keys(requested).length > 0 && { requested }) };
}

interface Survey {
  byType: Record<string, number>;
  docs: Set<Digest>;
  entriesSize: number;
  payloadsSize: number;
  payloads: number;
  /** Payloads absent from the store: digest -> lines that name it (count and seq digits). */
  missing: Map<Digest, { count: number; digits: number }>;
  erasedBy: Map<Digest, number>;
}

const parse = (bytes: Uint8Array): Record<string, any> => JSON.parse(utf8.decode(bytes));

async function survey(source: ExportSource, plan: ExportPlan, withPayloads: boolean): Promise<Survey> {
  const s: Survey = { byType: {}, docs: new Set(), entriesSize: 0, payloadsSize: 0, payloads: 0, missing: new Map(), erasedBy: new Map() };
  for await (const { seq, bytes } of source.entries(plan.from, plan.to)) {
    s.entriesSize += entryLineLength(seq, bytes.length);
    const e = parse(bytes);
    s.byType[e.type] = (s.byType[e.type] ?? 0) + 1;
    const p = e.type === 'policy' ? e : e.policy;
    for (const d of [p?.chain, p?.policySet]) if (isDigest(d)) s.docs.add(d);
    if (e.type === 'erasure') for (const d of erasedDigests(e)) s.erasedBy.set(d, seq);
    if (!withPayloads) continue;
    for (const digest of bundledPayloadsOf(e)) {
      const bytesOf = await source.payload(digest);
      if (bytesOf) {
        s.payloads++;
        s.payloadsSize += payloadLineLength({ seq, digest, byteLength: bytesOf.length });
      } else {
        const m = s.missing.get(digest) ?? { count: 0, digits: 0 };
        m.count++;
        m.digits += String(seq).length;
        s.missing.set(digest, m);
      }
    }
  }
  if (s.missing.size > 0) {
    // An erasure comes after the decisions it erases: look past the range for the rest.
    const size = await source.size();
    for await (const { seq, bytes } of source.entries(plan.to, size)) {
      const e = parse(bytes);
      if (e.type === 'erasure') for (const d of erasedDigests(e)) if (s.missing.has(d) && !s.erasedBy.has(d)) s.erasedBy.set(d, seq);
    }
    for (const [digest, m] of s.missing) {
      const at = s.erasedBy.get(digest);
      if (at === undefined) continue; // absent without an erasure: left out, replay says `payload missing`
      s.payloadsSize += m.count * (payloadLineLength({ seq: 0, digest, erased: at }) - 1) + m.digits;
    }
  }
  return s;
}

export function keyRecordsOf(vkeys: string[]): KeyRecord[] {
  return vkeys.map((vkey) => {
    const v = parseVkey(vkey);
    return { alg: v.alg, keyId: toHex(v.keyId), vkey };
  });
}

export async function exportBundle(source: ExportSource, sink: BundleSink, opts: ExportOptions, plan?: ExportPlan): Promise<BundleManifest> {
  plan ??= await planExport(source, opts);
  const withPayloads = opts.payloads === true;
  const s = await survey(source, plan, withPayloads);
  const docs: { path: string; bytes: Uint8Array }[] = [];
  const counts = { chains: 0, policies: 0 };
  for (const d of [...s.docs].sort()) {
    const doc = await source.document(d);
    if (!doc) {
      plan.notes.push(`document ${d} named by an entry is not in the store`);
      continue;
    }
    counts[doc.kind === 'chain' ? 'chains' : 'policies']++;
    docs.push({ path: documentPath(doc.kind, d), bytes: doc.bytes });
  }
  const stamps = tiedStamps((await opts.timestamps?.(plan.from, plan.to)) ?? [], plan);
  const erased = [...s.missing].reduce((n, [d, m]) => n + (s.erasedBy.has(d) ? m.count : 0), 0);
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    origin: source.origin,
    range: { from: plan.from, to: plan.to },
    ...(plan.requested && { requested: plan.requested }),
    notes: plan.notes,
    checkpoint: { size: plan.checkpoint.size, root: toHex(plan.checkpoint.root) },
    counts: { entries: plan.to - plan.from, byType: s.byType, payloads: s.payloads, erased, ...counts },
    keys: keyRecordsOf(opts.keys.vkeys),
    tool: opts.tool,
    payloads: withPayloads,
    ...(opts.created && { created: opts.created }),
  };
  await putText(sink, FILES.manifest, JSON.stringify(manifest, null, 1) + '\n');
  await putText(sink, FILES.readme, bundleReadme(manifest));
  await putText(sink, FILES.keys, JSON.stringify({ vkeys: opts.keys.vkeys, jwks: opts.keys.jwks }, null, 1) + '\n');
  await putText(sink, FILES.checkpoint, plan.checkpoint.note);
  await putText(sink, FILES.range, formatRangeFile(await rangeBefore(source, plan.from)));
  if (stamps.length > 0) await putText(sink, FILES.timestamps, JSON.stringify(stamps, null, 1) + '\n');
  for (const d of docs) await sink.file(d.path, d.bytes.length, [d.bytes]);
  await sink.file(FILES.entries, s.entriesSize, chunked(entryLines(source, plan)));
  if (withPayloads) await sink.file(FILES.payloads, s.payloadsSize, chunked(payloadLines(source, plan, s.erasedBy)));
  return manifest;
}

/**
 * The stamps whose checkpoint its proof ties to the bundle's tree: what the verifier accepts. A stamp
 * it would reject (of another log under the same origin, e.g. a data directory made again; a stored
 * note that does not parse) is left out with a manifest note, never written as evidence that fails.
 */
function tiedStamps(stamps: TimestampEvidence[], plan: ExportPlan): TimestampEvidence[] {
  const tree = parseCheckpoint(parseNote(plan.checkpoint.note).text);
  return stamps.filter((ev) => {
    let size = '?';
    try {
      const cp = parseCheckpoint(parseNote(ev.checkpoint).text);
      size = String(cp.size);
      const r = checkExtends(cp, tree, ev.proof.map(fromHex));
      if (r.ok) return true;
      plan.notes.push(`a TSA time-stamp of checkpoint size ${size} is left out: ${r.message}`);
    } catch (e) {
      plan.notes.push(`a TSA time-stamp of checkpoint size ${size} is left out: ${(e as Error).message}`);
    }
    return false;
  });
}

function putText(sink: BundleSink, name: string, text: string): Promise<void> {
  const bytes = utf8.encode(text);
  return sink.file(name, bytes.length, [bytes]);
}

/**
 * The compact range of [0, from): the inclusion proof of the last leaf of a tree of size `from`
 * is, leaf side first, exactly the perfect subtrees of [0, from-1); add that leaf.
 */
export async function rangeBefore(source: Pick<ExportSource, 'entry' | 'inclusionProof'>, from: number): Promise<{ range: { size: number; hashes: Hash[] }; prevLeaf: string }> {
  if (from === 0) return { range: { size: 0, hashes: [] }, prevLeaf: GENESIS_PREV };
  const last = await source.entry(from - 1);
  if (!last) throw new VouchError('ERR_NOT_FOUND', `entry ${from - 1} is not stored`);
  const leaf = hashLeaf(last);
  const proof = await source.inclusionProof(from - 1, from);
  return { range: extendRange({ size: from - 1, hashes: [...proof].reverse() }, [leaf]), prevLeaf: toHex(leaf) };
}

async function* entryLines(source: ExportSource, plan: ExportPlan): AsyncGenerator<string> {
  for await (const { seq, bytes } of source.entries(plan.from, plan.to)) yield formatEntryLine(seq, bytes);
}

async function* payloadLines(source: ExportSource, plan: ExportPlan, erasedBy: Map<Digest, number>): AsyncGenerator<string> {
  for await (const { seq, bytes } of source.entries(plan.from, plan.to)) {
    for (const digest of bundledPayloadsOf(parse(bytes))) {
      const payload = await source.payload(digest);
      if (payload) yield formatPayloadLine({ seq, digest, bytes: payload });
      else if (erasedBy.has(digest)) yield formatPayloadLine({ seq, digest, erased: erasedBy.get(digest)! });
    }
  }
}

/**
 * The payloads a decision's replay reads, in the order its lines go in payloads.jsonl (one seq may
 * have several): its input, then what each enricher added (issue 39), by the digests its entry records.
 */
function bundledPayloadsOf(e: Record<string, any>): Digest[] {
  if (e.type !== 'decision' || !isDigest(e.input?.digest)) return [];
  const out: Digest[] = [e.input.digest];
  const state = typeof e.state === 'object' && e.state !== null && !Array.isArray(e.state) ? e.state : {};
  for (const r of recordedEnrichers(state)) if (r.enrichment && !out.includes(r.enrichment)) out.push(r.enrichment);
  return out;
}

/** Lines gathered into chunks of about 64 KiB: one write per chunk, not per line. */
async function* chunked(lines: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  let parts: string[] = [];
  let n = 0;
  for await (const l of lines) {
    parts.push(l);
    n += l.length;
    if (n >= CHUNK) {
      yield utf8.encode(parts.join(''));
      parts = [];
      n = 0;
    }
  }
  if (parts.length > 0) yield utf8.encode(parts.join(''));
}
