// Audit bundle format v1 (DESIGN.md section 7): file names, the manifest, the range file and the
// JSONL line shapes, each with a strict parser (a bundle is untrusted input). Portable.
import { fromHex, isDigest, toHex, type Digest } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import type { CompactRange } from '../log/index.js';
import { decodeBase64, encodeBase64 } from './_base64.js';

export const BUNDLE_FORMAT = 'vouch-audit-bundle';
export const BUNDLE_VERSION = 1;

export const FILES = {
  manifest: 'manifest.json',
  checkpoint: 'checkpoint',
  entries: 'entries.jsonl',
  range: 'range.json',
  keys: 'keys.json',
  payloads: 'payloads.jsonl',
  readme: 'README.md',
  /** RFC 3161 stamps of checkpoints in the range (issue 41), each tied to the bundle's tree by a consistency proof. */
  timestamps: 'timestamps.json',
} as const;

/** Every file name a bundle may hold; anything else is reported as unknown, never read. */
const BUNDLE_FILE = /^(manifest\.json|checkpoint|entries\.jsonl|range\.json|keys\.json|payloads\.jsonl|README\.md|timestamps\.json|chains\/sha256-[0-9a-f]{64}\.json|policies\/sha256-[0-9a-f]{64})$/;
export const isBundleFile = (name: string): boolean => BUNDLE_FILE.test(name);
/** The two streamed files; every other bundle file is small and read whole. */
export const isJsonlFile = (name: string): boolean => name === FILES.entries || name === FILES.payloads;
export const BUNDLE_DIRS = ['chains', 'policies'] as const;

/**
 * What a reader of an untrusted bundle spends at most (DESIGN.md section 7): a bundle past any of
 * these is refused with ERR_BUNDLE_LIMIT before it is verified. Defaults hold a log of tens of
 * millions of entries; memory stays under maxSmallTotal + a few lines, whatever the bundle.
 */
export interface BundleLimits {
  /** One JSONL line (an entry, or a payload in base64: the service takes 1 MiB bodies by default). */
  maxLine: number;
  /** One small file (manifest, keys, checkpoint, range, README, a document). */
  maxSmallFile: number;
  /** All small files together: a .tar.gz reader holds them in memory. */
  maxSmallTotal: number;
  /** Every file's bytes together (decompressed). */
  maxTotal: number;
  /** Files and directories in the bundle. */
  maxFiles: number;
  /** Decompressed bytes per compressed byte, checked once past ratioFloor bytes. */
  maxRatio: number;
  ratioFloor: number;
}

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  maxLine: 16 << 20,
  maxSmallFile: 16 << 20,
  maxSmallTotal: 64 << 20,
  maxTotal: 256 * 2 ** 30,
  maxFiles: 20_000,
  maxRatio: 250,
  ratioFloor: 64 << 20,
};

/** `chains/sha256-<hex>.json`, `policies/sha256-<hex>`: `:` is not allowed in Windows file names. */
export function documentPath(kind: 'chain' | 'policy', digest: Digest): string {
  const name = digest.replace(':', '-');
  return kind === 'chain' ? `chains/${name}.json` : `policies/${name}`;
}

export interface KeyRecord {
  alg: string;
  keyId: string;
  vkey: string;
}

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  origin: string;
  /** Entries [from, to): `to` is the size of the signed checkpoint in `checkpoint`. */
  range: { from: number; to: number };
  /** What was asked for, when the bundle had to differ (no checkpoint at the requested size). */
  requested?: { from?: number; to?: number };
  notes: string[];
  checkpoint: { size: number; root: string };
  counts: { entries: number; byType: Record<string, number>; payloads: number; erased: number; chains: number; policies: number };
  /** The log's public keys (key history): vkeys, and the same keys as a JWKS in keys.json. */
  keys: KeyRecord[];
  tool: { name: string; version: string };
  payloads: boolean;
  created?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isHex32 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

function fail(what: string, issues: Issue[]): never {
  throw new InputError('ERR_INPUT', `malformed ${what}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export function parseManifest(v: unknown): BundleManifest {
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path, message });
  if (!isRecord(v)) fail(FILES.manifest, [{ path: '', message: 'not an object' }]);
  if (v.format !== BUNDLE_FORMAT) bad('/format', `must be ${BUNDLE_FORMAT}`);
  if (v.version !== BUNDLE_VERSION) bad('/version', `must be ${BUNDLE_VERSION}`);
  if (typeof v.origin !== 'string' || v.origin === '') bad('/origin', 'must be a non-empty string');
  const range = v.range as Record<string, unknown>;
  if (!isRecord(range) || !isCount(range.from) || !isCount(range.to) || range.from > range.to) bad('/range', 'must be {from, to} with 0 <= from <= to');
  const cp = v.checkpoint as Record<string, unknown>;
  if (!isRecord(cp) || !isCount(cp.size) || !isHex32(cp.root)) bad('/checkpoint', 'must be {size, root (hex)}');
  const counts = v.counts as Record<string, unknown>;
  if (!isRecord(counts) || !['entries', 'payloads', 'erased', 'chains', 'policies'].every((k) => isCount(counts[k])) || !isRecord(counts.byType)) bad('/counts', 'must hold entry, payload, erased, chain and policy counts and byType');
  if (!Array.isArray(v.keys) || !v.keys.every((k) => isRecord(k) && typeof k.vkey === 'string' && typeof k.alg === 'string' && typeof k.keyId === 'string')) bad('/keys', 'must be a list of {alg, keyId, vkey}');
  if (!Array.isArray(v.notes) || !v.notes.every((n) => typeof n === 'string')) bad('/notes', 'must be a list of strings');
  if (typeof v.payloads !== 'boolean') bad('/payloads', 'must be a boolean');
  if (!isRecord(v.tool) || typeof v.tool.name !== 'string' || typeof v.tool.version !== 'string') bad('/tool', 'must be {name, version}');
  if (issues.length > 0) fail(FILES.manifest, issues);
  return v as unknown as BundleManifest;
}

/** range.json: the compact range of [0, from) and the leaf hash of entry from-1 (64 zeros at 0). */
export interface RangeFile {
  range: CompactRange;
  prevLeaf: string;
}

export function formatRangeFile(r: RangeFile): string {
  return JSON.stringify({ size: r.range.size, hashes: r.range.hashes.map(toHex), prevLeaf: r.prevLeaf }, null, 1) + '\n';
}

export function parseRangeFile(v: unknown): RangeFile {
  const issues: Issue[] = [];
  if (!isRecord(v)) fail(FILES.range, [{ path: '', message: 'not an object' }]);
  if (!isCount(v.size)) issues.push({ path: '/size', message: 'must be a non-negative integer' });
  if (!Array.isArray(v.hashes)) issues.push({ path: '/hashes', message: 'must be a list of hex hashes' });
  else v.hashes.forEach((h, i) => isHex32(h) || issues.push({ path: `/hashes/${i}`, message: 'not a 32-byte hex hash' }));
  if (!isHex32(v.prevLeaf)) issues.push({ path: '/prevLeaf', message: 'not a 32-byte hex hash' });
  if (issues.length > 0) fail(FILES.range, issues);
  return { range: { size: v.size as number, hashes: (v.hashes as string[]).map(fromHex) }, prevLeaf: v.prevLeaf as string };
}

export function formatEntryLine(seq: number, bytes: Uint8Array): string {
  return `{"seq":${seq},"entry":"${encodeBase64(bytes)}"}\n`;
}

/** Byte length of formatEntryLine without building it (tar headers need sizes up front). */
export function entryLineLength(seq: number, byteLength: number): number {
  return `{"seq":${seq},"entry":""}\n`.length + 4 * Math.ceil(byteLength / 3);
}

/** The line exactly as formatEntryLine writes it: matched without a JSON parse of 2 kB of base64. */
const ENTRY_LINE = /^\{"seq":(0|[1-9][0-9]{0,15}),"entry":"([A-Za-z0-9+/]*={0,2})"\}$/;

export function parseEntryLine(line: string): { seq: number; bytes: Uint8Array } {
  const m = ENTRY_LINE.exec(line);
  if (m && Number.isSafeInteger(Number(m[1]))) return { seq: Number(m[1]), bytes: decodeBase64(m[2]) };
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new InputError('ERR_JSON_PARSE', 'entries.jsonl line is not JSON');
  }
  if (!isRecord(v) || !isCount(v.seq) || typeof v.entry !== 'string') throw new InputError('ERR_INPUT', 'entries.jsonl line must be {"seq": N, "entry": "<base64>"}');
  return { seq: v.seq, bytes: decodeBase64(v.entry) };
}

export type PayloadLine = { seq: number; digest: Digest; bytes: Uint8Array } | { seq: number; digest: Digest; erased: number };

export function formatPayloadLine(p: PayloadLine): string {
  const tail = 'bytes' in p ? `"payload":"${encodeBase64(p.bytes)}"` : `"erased":${p.erased}`;
  return `{"seq":${p.seq},"digest":"${p.digest}",${tail}}\n`;
}

export function payloadLineLength(p: { seq: number; digest: Digest } & ({ byteLength: number } | { erased: number })): number {
  const tail = 'erased' in p ? `"erased":${p.erased}` : `"payload":""`;
  return `{"seq":${p.seq},"digest":"${p.digest}",${tail}}\n`.length + ('byteLength' in p ? 4 * Math.ceil(p.byteLength / 3) : 0);
}

export function parsePayloadLine(line: string): PayloadLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new InputError('ERR_JSON_PARSE', 'payloads.jsonl line is not JSON');
  }
  if (!isRecord(v) || !isCount(v.seq) || !isDigest(v.digest)) throw new InputError('ERR_INPUT', 'payloads.jsonl line must name seq and digest');
  if (typeof v.payload === 'string') return { seq: v.seq, digest: v.digest, bytes: decodeBase64(v.payload) };
  if (isCount(v.erased)) return { seq: v.seq, digest: v.digest, erased: v.erased };
  throw new InputError('ERR_INPUT', 'payloads.jsonl line must hold a payload or an erased seq');
}
