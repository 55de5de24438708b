// The conformance checks C-REC-1..7 of the Tamper-Evident Audit Record Contract (SEP-3004,
// audit-record-contract/1) over an exported record set, each reported with every finding (capped).
// Reads any export ({records, attestation_manifest}); vouch's own adds a segment to count. Portable.
import { isPlainObject } from '../canonical/index.js';
import { CANONICAL_FORM_ALIASES, canonicalForm, compareCodePoints, eventHash } from './sep3004-canonical.js';
import { EVENT_TYPE_RE, EXTENSION_REGISTRY, OUTCOMES } from './sep3004-record.js';

export type Sep3004CheckId = 'C-REC-1' | 'C-REC-2' | 'C-REC-3' | 'C-REC-4' | 'C-REC-5' | 'C-REC-6' | 'C-REC-7' | 'vouch-link';
export interface Sep3004Finding { record?: number; event_id?: string; message: string }
export interface Sep3004Check {
  id: Sep3004CheckId;
  title: string;
  status: 'pass' | 'fail' | 'not-checked';
  /** What was checked, in a line. */
  detail: string;
  findings: Sep3004Finding[];
  /** Findings past the cap, counted. */
  omitted: number;
}
export interface Sep3004Report { ok: boolean; records: number; checks: Sep3004Check[]; origin?: string; range?: { from: number; to: number } }

const MAX_FINDINGS = 20;
const HEX64 = /^[0-9a-f]{64}$/;
const OCCURRED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The contract's two known answers (Conformance, C-REC-3): the verifier proves its own canonicalizer on them first. */
export const KNOWN_ANSWERS = (() => {
  const core = { event_id: '99999999-9999-9999-9999-999999999999', occurred_at: '2026-06-06T12:00:00.000Z', principal_id: 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', event_type: 'tool_call', tool_name: 'export', outcome: 'deferred', previous_hash: null };
  const cg = { flagged: false, invoked_by_principal_id: null, purpose_declared: 'reconcile June invoices', session_id: '55555555-5555-5555-5555-555555555555' };
  const rs = { drift_status: 'confirmed', evidence_hash: 'sha256:b2c547e2c8f17eafc72ef5c2d4d7b6b4d0f7437ab52bae573a9af14ff5e2d9be', policy_id: 'example.org/runtime-drift@3', quarantine_decision: 'quarantine', severity: 'high' };
  return [
    { name: 'single-extension', record: { ...core, extensions: { 'caller-governance': cg } }, hash: 'd494769c1ae442ea88dd190068747abf63c0568a3b856f85791b1a50a99d48b4' },
    { name: 'two-extension', record: { ...core, extensions: { 'caller-governance': cg, 'runtime-security': rs } }, hash: 'f733fed9cc757165f810b778e4baba1f51a45504988e937707aaab4361b2f064' },
  ];
})();

class Check {
  readonly findings: Sep3004Finding[] = [];
  omitted = 0;
  notChecked?: string;
  constructor(readonly id: Sep3004CheckId, readonly title: string, public detail: string) {}
  add(message: string, record?: number, rec?: unknown): void {
    if (this.findings.length >= MAX_FINDINGS) return void this.omitted++;
    const id = isPlainObject(rec) && typeof rec.event_id === 'string' ? rec.event_id : undefined;
    this.findings.push({ ...(record !== undefined && { record }), ...(id !== undefined && { event_id: id }), message });
  }
  done(): Sep3004Check {
    const failed = this.findings.length + this.omitted > 0;
    return { id: this.id, title: this.title, status: failed ? 'fail' : this.notChecked ? 'not-checked' : 'pass', detail: this.notChecked ?? this.detail, findings: this.findings, omitted: this.omitted };
  }
}

const TYPE_OK = {
  string: (v: unknown) => typeof v === 'string',
  boolean: (v: unknown) => typeof v === 'boolean',
  'string-or-null': (v: unknown) => v === null || typeof v === 'string',
  'boolean-or-null': (v: unknown) => v === null || typeof v === 'boolean',
} as const;

/** §2.2 sources_touched: the canonical serialization of a non-empty, sorted, deduplicated array of non-empty strings. */
function sourcesTouchedProblem(v: string): string | undefined {
  let arr: unknown;
  try {
    arr = JSON.parse(v);
  } catch {
    return 'is not a serialized JSON array';
  }
  if (!Array.isArray(arr) || arr.length === 0 || !arr.every((x) => typeof x === 'string' && x !== '')) return 'is not a non-empty array of non-empty strings (a recorded-but-empty set is null)';
  const sorted = [...new Set(arr as string[])].sort(compareCodePoints);
  const canonical = '[' + sorted.map((s) => '"' + s.replace(/["\\]/g, (c) => '\\' + c) + '"').join(',') + ']';
  return canonical === v ? undefined : 'is not deduplicated, sorted and minimally escaped';
}

/** C-REC-1 for one record: the §2.1 core, the outcome enum, and each extension against its registration. */
function checkSkeleton(rec: unknown, i: number, c: Check): void {
  if (!isPlainObject(rec)) return c.add('is not a JSON object', i);
  const bad = (m: string) => c.add(m, i, rec);
  for (const f of ['event_id', 'principal_id', 'event_type'] as const) if (typeof rec[f] !== 'string' || rec[f] === '') bad(`${f} must be a non-empty string`);
  if (typeof rec.occurred_at !== 'string' || !OCCURRED_AT.test(rec.occurred_at) || !Number.isFinite(Date.parse(rec.occurred_at)) || new Date(rec.occurred_at).toISOString() !== rec.occurred_at) bad('occurred_at must be RFC 3339 UTC with milliseconds and Z (§2.3)');
  if (!('tool_name' in rec) || (rec.tool_name !== null && typeof rec.tool_name !== 'string')) bad('tool_name must be present, a string or null');
  if (!(OUTCOMES as readonly unknown[]).includes(rec.outcome)) bad(`outcome ${JSON.stringify(rec.outcome)} is not one of ${OUTCOMES.join(', ')} (§2.1.1)`);
  if (!('previous_hash' in rec) || (rec.previous_hash !== null && typeof rec.previous_hash !== 'string')) bad('previous_hash must be present, a digest or null');
  if (typeof rec.event_hash !== 'string') bad('event_hash must be a string');
  if (rec.anchor_witness !== undefined && rec.anchor_witness !== null) bad('anchor_witness is reserved and must be absent or null in v1 (§2.8)');
  const ext = rec.extensions;
  if (!isPlainObject(ext)) return bad('extensions must be an object keyed by registered type id (§2.2)');
  if (Object.keys(ext).length === 0) bad('extensions must carry at least one registered extension');
  for (const [type, data] of Object.entries(ext)) {
    const reg = EXTENSION_REGISTRY[type];
    if (!reg) {
      bad(`extension ${JSON.stringify(type)} is not registered`);
      continue;
    }
    if (!isPlainObject(data)) {
      bad(`extension ${type} data must be an object`);
      continue;
    }
    for (const f of reg.required) if (data[f] === undefined || data[f] === null) bad(`extension ${type} requires ${f}`);
    for (const [f, v] of Object.entries(data)) {
      const t = reg.types[f];
      if (t && v !== undefined && !TYPE_OK[t](v)) bad(`extension ${type}: ${f} must be ${t.replace(/-/g, ' ')}`);
      const vocab = reg.enums[f];
      if (vocab && typeof v === 'string' && !vocab.includes(v)) bad(`extension ${type}: ${f} ${JSON.stringify(v)} is not one of ${vocab.join(', ')}`);
    }
    if (type === 'runtime-security') {
      if (typeof data.policy_id === 'string' && !/^.+\/[^/@]+@.+$/.test(data.policy_id)) bad('extension runtime-security: policy_id must read <scope>/<name>@<revision>');
      if (typeof data.evidence_hash === 'string' && !/^[a-z0-9-]+:[0-9a-f]+$/.test(data.evidence_hash)) bad('extension runtime-security: evidence_hash must read <algorithm>:<lowercase hex>');
    }
    if (type === 'caller-governance' && typeof data.sources_touched === 'string') {
      const p = sourcesTouchedProblem(data.sources_touched);
      if (p) bad(`extension caller-governance: sources_touched ${p}`);
    }
  }
}

const reverseKeys = (v: unknown): unknown =>
  isPlainObject(v) ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reverseKeys(v[k])])) : v;

/** Every C-REC check over one exported record set. `doc` is untrusted: any shape gets findings, never a throw. */
export function verifySep3004(doc: unknown): Sep3004Report {
  const records: unknown[] = Array.isArray(doc) ? doc : isPlainObject(doc) && Array.isArray(doc.records) ? doc.records : [];
  const c1 = new Check('C-REC-1', 'core fields, outcome and registered extensions', `the §2.1 core and §2.2 registrations of ${records.length} records`);
  const c2 = new Check('C-REC-2', 'canonical form', `the canonical form of ${records.length} records: strings, booleans and null only; NFC, U+0020 trim, no control characters or unpaired surrogates, length cap`);
  const c3 = new Check('C-REC-3', 'event_hash', `SHA-256 of each canonical form equals its event_hash; this verifier reproduces both published known answers`);
  const c4 = new Check('C-REC-4', 'previous_hash chain', `one segment of ${records.length} records: the head links to null, each next record to the prior event_hash`);
  const c5 = new Check('C-REC-5', 'emission completeness', '');
  const c6 = new Check('C-REC-6', 'extensions under one chain', '');
  const c7 = new Check('C-REC-7', 'attestation manifest', 'storage_mechanism, chain_algorithm, canonical_form_version and verification_procedure_ref declared');
  if (!Array.isArray(doc) && !(isPlainObject(doc) && Array.isArray(doc.records))) c1.add('the export has no records array');

  // C-REC-3 first proves this canonicalizer: a verifier that cannot reproduce the contract's digests proves nothing.
  for (const k of KNOWN_ANSWERS) if (eventHash(k.record) !== k.hash) c3.add(`this verifier does not reproduce the ${k.name} known answer ${k.hash}`);

  const ids = new Set<string>();
  let previous: string | null | undefined;
  records.forEach((rec, i) => {
    checkSkeleton(rec, i, c1);
    if (!isPlainObject(rec)) return;
    if (typeof rec.event_id === 'string') {
      if (ids.has(rec.event_id)) c1.add('event_id is not unique within the chain', i, rec);
      ids.add(rec.event_id);
    }
    let canonical: string | undefined;
    try {
      canonical = canonicalForm(rec);
      if (i === 0 && canonicalForm(reverseKeys(rec) as Record<string, unknown>) !== canonical) c2.add('the canonical form depends on key order', i, rec);
    } catch (e) {
      c2.add((e as Error).message, i, rec);
    }
    if (typeof rec.event_hash !== 'string' || !HEX64.test(rec.event_hash)) c3.add('event_hash is not 64 lowercase hex digits (§2.4)', i, rec);
    else if (canonical !== undefined && eventHash(rec) !== rec.event_hash) c3.add('event_hash is not the SHA-256 of the canonical form: the record was altered after it was sealed', i, rec);
    if (i === 0 && rec.previous_hash !== null) c4.add('the segment head must carry previous_hash null', i, rec);
    if (i > 0 && rec.previous_hash !== previous) c4.add('previous_hash is not the prior record\'s event_hash: a record was inserted, removed, reordered or altered', i, rec);
    if (typeof rec.previous_hash === 'string' && !HEX64.test(rec.previous_hash)) c4.add('previous_hash is not 64 lowercase hex digits', i, rec);
    previous = typeof rec.event_hash === 'string' ? rec.event_hash : undefined;
  });

  checkEmission(doc, records, c5);
  checkExtensionsChained(records, c6);
  checkManifest(isPlainObject(doc) ? doc.attestation_manifest : undefined, c7);
  const checks = [c1, c2, c3, c4, c5, c6, c7].map((c) => c.done());
  const segment = isPlainObject(doc) && isPlainObject(doc.segment) ? doc.segment : undefined;
  const range = segment && isPlainObject(segment.range) && Number.isSafeInteger(segment.range.from) && Number.isSafeInteger(segment.range.to) ? { from: segment.range.from as number, to: segment.range.to as number } : undefined;
  return {
    ok: checks.every((c) => c.status !== 'fail'),
    records: records.length,
    checks,
    ...(typeof segment?.origin === 'string' && { origin: segment.origin }),
    ...(range && { range }),
  };
}

/** C-REC-5 (§2.9): the declared set is "every decision entry of the range": count, order and vocabulary against the export's segment. */
function checkEmission(doc: unknown, records: unknown[], c: Check): void {
  const segment = isPlainObject(doc) && isPlainObject(doc.segment) ? doc.segment : undefined;
  const counts = segment && isPlainObject(segment.counts) ? segment.counts : undefined;
  const range = segment && isPlainObject(segment.range) ? segment.range : undefined;
  if (!counts || typeof counts.decisions !== 'number' || !range || typeof range.from !== 'number' || typeof range.to !== 'number') {
    c.notChecked = 'not checked: the export declares no emission set (a vouch export declares one record per decision entry of its range)';
    return;
  }
  const [from, to] = [range.from, range.to];
  c.detail = `one record for each of the ${counts.decisions} decision entries of [${from}, ${to}), in seq order, event_type from vouch's declared vocabulary`;
  if (records.length !== counts.decisions) c.add(`${records.length} records for ${counts.decisions} decision entries: a record is missing or extra`);
  let last = from - 1;
  records.forEach((rec, i) => {
    if (!isPlainObject(rec)) return;
    if (typeof rec.event_type !== 'string' || !EVENT_TYPE_RE.test(rec.event_type)) c.add(`event_type ${JSON.stringify(rec.event_type)} is not in vouch's declared vocabulary`, i, rec);
    const seq = isPlainObject(rec.vouch) ? rec.vouch.seq : undefined;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq <= last || seq >= to) c.add(`vouch.seq ${JSON.stringify(seq)} is not after ${last} and before ${to}`, i, rec);
    else last = seq;
  });
}

/** C-REC-6: every record's extensions hash under the one construction; shown on the data by altering one extension value. */
function checkExtensionsChained(records: unknown[], c: Check): void {
  const i = records.findIndex((r) => isPlainObject(r) && isPlainObject(r.extensions) && Object.values(r.extensions).some((d) => isPlainObject(d) && Object.values(d).some((v) => typeof v === 'string')));
  if (i < 0) {
    c.notChecked = 'not checked: no record carries extension data';
    return;
  }
  const rec = records[i] as Record<string, any>;
  const [type, data] = Object.entries(rec.extensions as Record<string, Record<string, unknown>>).find(([, d]) => isPlainObject(d) && Object.values(d).some((v) => typeof v === 'string'))!;
  const field = Object.keys(data).find((k) => typeof data[k] === 'string')!;
  const types = new Set(records.flatMap((r) => (isPlainObject(r) && isPlainObject(r.extensions) ? Object.keys(r.extensions) : [])));
  c.detail = `extension types ${[...types].sort().join(', ')} chain under one construction; altering ${type}.${field} of record ${i} changes its event_hash`;
  try {
    const altered = { ...rec, extensions: { ...rec.extensions, [type]: { ...data, [field]: `${data[field]}x` } } };
    if (eventHash(altered) === eventHash(rec)) c.add(`${type}.${field} is not in the preimage`, i, rec);
  } catch {
    // C-REC-2 reports a record the canonical form cannot carry.
  }
}

/** C-REC-7 (§2.7): structured, not a bare "trust us"; and of the form and hash this verifier implements. */
function checkManifest(m: unknown, c: Check): void {
  if (!isPlainObject(m)) return c.add('no attestation manifest: a bare attestation is not conformant');
  for (const f of ['storage_mechanism', 'chain_algorithm', 'canonical_form_version', 'verification_procedure_ref']) {
    if (typeof m[f] !== 'string' || (m[f] as string).trim() === '') c.add(`attestation manifest: ${f} is missing or empty`);
  }
  if (typeof m.chain_algorithm === 'string' && !/^sha-?256$/i.test(m.chain_algorithm)) c.add(`chain_algorithm ${m.chain_algorithm}: this verifier checks SHA-256 chains only`);
  if (typeof m.canonical_form_version === 'string' && !CANONICAL_FORM_ALIASES.includes(m.canonical_form_version)) c.add(`canonical_form_version ${m.canonical_form_version} is not audit-record-contract/1 (nor its draft name gif-audit/2)`);
}

