// SEP-3004 (audit-record-contract/1) vectors: vouch reproduces the contract's two known answers
// byte for byte; the contract's 23 reference vectors pass with vouch's canonicalizer and checks in
// place of the reference verifier's; and the cases the successor set added (C1, surrogates, astral).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { sealSep3004Record, sep3004CanonicalForm, sep3004EventHash, verifySep3004, type Sep3004Report } from '../../src/audit/index.js';

const dir = (p: string) => fileURLToPath(new URL(`../../fixtures/vectors/sep3004/${p}`, import.meta.url));
const kat = (name: string) => JSON.parse(readFileSync(dir(`kat/${name}.json`), 'utf8')) as { record: Record<string, unknown>; preimage: string; event_hash: string };
const MANIFEST = { storage_mechanism: 'test', chain_algorithm: 'sha-256', canonical_form_version: 'audit-record-contract/1', verification_procedure_ref: 'test' };
const status = (r: Sep3004Report, id: string) => r.checks.find((c) => c.id === id)!.status;

describe('known answers (C-REC-3)', () => {
  for (const name of ['single-extension', 'two-extension']) {
    it(`${name}: vouch's canonical bytes equal the published preimage and hash to the published digest`, () => {
      const k = kat(name);
      // The fixture holds by an independent hash (node's OpenSSL, not vouch's noble SHA-256).
      expect(createHash('sha256').update(k.preimage, 'utf8').digest('hex')).toBe(k.event_hash);
      expect(sep3004CanonicalForm(k.record)).toBe(k.preimage);
      expect(sep3004EventHash(k.record)).toBe(k.event_hash);
      const report = verifySep3004({ records: [{ ...k.record, event_hash: k.event_hash }], attestation_manifest: MANIFEST });
      expect(report.checks.map((c) => [c.id, c.status])).toEqual([['C-REC-1', 'pass'], ['C-REC-2', 'pass'], ['C-REC-3', 'pass'], ['C-REC-4', 'pass'], ['C-REC-5', 'not-checked'], ['C-REC-6', 'pass'], ['C-REC-7', 'pass']]);
      expect(report.ok).toBe(true);
    });
  }

  it('V-REC3-kat-core-altered, V-REC3-kat-extension-altered: an altered core or extension field no longer gives the known answer', () => {
    const k = kat('single-extension');
    expect(sep3004EventHash({ ...k.record, outcome: 'allowed' })).not.toBe(k.event_hash);
    const ext = k.record.extensions as Record<string, Record<string, unknown>>;
    expect(sep3004EventHash({ ...k.record, extensions: { 'caller-governance': { ...ext['caller-governance'], purpose_declared: 'something else' } } })).not.toBe(k.event_hash);
    const report = verifySep3004({ records: [{ ...k.record, outcome: 'allowed', event_hash: k.event_hash }], attestation_manifest: MANIFEST });
    expect(status(report, 'C-REC-3')).toBe('fail');
  });
});

type CheckResult = { ok: boolean; failures: string[] };
const picked = (r: Sep3004Report, ids: string[]): CheckResult => {
  const checks = r.checks.filter((c) => ids.includes(c.id));
  return { ok: checks.every((c) => c.status !== 'fail'), failures: checks.flatMap((c) => c.findings.map((f) => f.message)) };
};

/** The reference verifier's API, answered by vouch: what the upstream vectors call. */
const vouchAsReference = {
  canonicalPreimage: (r: Record<string, unknown>) => sep3004CanonicalForm(r),
  computeEventHash: (r: Record<string, unknown>) => sep3004EventHash(r),
  validateSkeleton: (r: unknown) => picked(verifySep3004({ records: [r] }), ['C-REC-1']),
  validateExtensions: (r: unknown) => picked(verifySep3004({ records: [r] }), ['C-REC-1']),
  verifyRecordHash: (r: unknown) => picked(verifySep3004({ records: [r] }), ['C-REC-2', 'C-REC-3']),
  verifyChainSegment: (rs: unknown[]) => picked(verifySep3004({ records: rs }), ['C-REC-2', 'C-REC-3', 'C-REC-4']),
  validateManifest: (m: unknown) => picked(verifySep3004({ records: [], attestation_manifest: m }), ['C-REC-7']),
};

type Vector = { id: string; expect: 'conformant' | 'nonconformant'; evaluate: () => CheckResult };
const passes = (v: Vector) => {
  let r: CheckResult;
  try {
    r = v.evaluate();
  } catch (e) {
    r = { ok: false, failures: [(e as Error).message] };
  }
  return (v.expect === 'conformant') === r.ok;
};

describe('the contract\'s reference vector set (gif, 23 vectors)', () => {
  const vectorsPath = dir('gif-conformance/vectors.ts');
  const referencePath = dir('gif-conformance/audit-record-contract.ts');

  it('passes with its own reference verifier: the vendored copy is the one the SEP cites', async () => {
    vi.resetModules();
    const { VECTORS } = (await import(/* @vite-ignore */ vectorsPath)) as { VECTORS: Vector[] };
    expect(VECTORS).toHaveLength(23);
    expect(VECTORS.filter((v) => !passes(v)).map((v) => v.id)).toEqual([]);
  });

  it('passes with vouch\'s canonicalizer and C-REC checks in the reference verifier\'s place', async () => {
    vi.resetModules();
    vi.doMock(referencePath, () => vouchAsReference);
    try {
      const { VECTORS } = (await import(/* @vite-ignore */ vectorsPath)) as { VECTORS: Vector[] };
      expect(VECTORS).toHaveLength(23);
      expect(VECTORS.filter((v) => !passes(v)).map((v) => v.id)).toEqual([]);
    } finally {
      vi.doUnmock(referencePath);
      vi.resetModules();
    }
  });
});

describe('canonical form: the cases audit-record-contract/1 added (successor vector ids)', () => {
  const k = kat('single-extension');
  const withPurpose = (purpose: string) => ({ ...k.record, extensions: { 'caller-governance': { ...(k.record.extensions as any)['caller-governance'], purpose_declared: purpose } } });

  it('V-REC2-c1-control: a C1 control (U+0085) is refused, not only C0', () => {
    expect(() => sealSep3004Record(withPurpose('line1\u0085line2'), null)).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
    const r = verifySep3004({ records: [{ ...withPurpose('line1\u0085line2'), event_hash: k.event_hash }] });
    expect(status(r, 'C-REC-2')).toBe('fail');
  });

  it('V-REC2-unpaired-surrogate: an unpaired surrogate is refused', () => {
    expect(() => sealSep3004Record(withPurpose('lone \uD83D surrogate'), null)).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
  });

  it('V-REC2-astral-literal: an astral character is accepted and written literally, as UTF-8', () => {
    const text = sep3004CanonicalForm(withPurpose('export \u{1F512} locked'));
    expect(text).toContain('export \u{1F512} locked');
    expect(text).not.toMatch(/\\u/);
    const sealed = sealSep3004Record(withPurpose('export \u{1F512} locked'), null);
    expect(sealed.event_hash).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  });

  it('NFC and U+0020-only trim converge equivalent strings; other whitespace and null vs "" stay distinct', () => {
    expect(sep3004EventHash(withPurpose('café audit '))).toBe(sep3004EventHash(withPurpose('café audit')));
    expect(sep3004EventHash(withPurpose('café audit\u00a0'))).not.toBe(sep3004EventHash(withPurpose('café audit')));
    expect(sep3004EventHash({ ...k.record, tool_name: null })).not.toBe(sep3004EventHash({ ...k.record, tool_name: '' }));
  });

  it('refuses bare numbers and arrays in the protected body; sorts keys by code point, not UTF-16 unit', () => {
    expect(() => sep3004CanonicalForm({ ...k.record, tool_name: 1 })).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
    expect(() => sep3004CanonicalForm({ ...k.record, extensions: { 'runtime-security': { severity: ['high'] } } })).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
    // U+FFFF < U+1F600 by code point, though its UTF-16 unit 0xFFFF > 0xD83D.
    const text = sep3004CanonicalForm({ ...k.record, extensions: { x: { '\u{1F600}': 'b', '\uFFFF': 'a' } } });
    expect(text.indexOf('\uFFFF')).toBeLessThan(text.indexOf('\u{1F600}'));
  });

  it('a hostile deeply nested record is refused, not a stack overflow', () => {
    let deep: Record<string, unknown> = { a: 'x' };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const r = verifySep3004({ records: [{ ...k.record, extensions: { 'runtime-security': deep }, event_hash: k.event_hash }] });
    expect(status(r, 'C-REC-2')).toBe('fail');
  });
});

describe('verifySep3004 reads untrusted input', () => {
  it('any shape gets findings, never a throw: a non-object, junk records, an impossible date, null extension data', () => {
    const k = kat('single-extension');
    const shapes: unknown[] = [null, 5, 'x', [], {}, { records: 'no' }, { records: [null, 5, 'x', [], {}] },
      { records: [{ ...k.record, occurred_at: '2026-13-45T99:99:99.000Z', event_hash: k.event_hash }] },
      { records: [{ ...k.record, extensions: { 'runtime-security': null, 'caller-governance': 'x' }, event_hash: 'A'.repeat(64) }] },
      { records: [{ ...k.record, extensions: { 'caller-governance': { purpose_declared: 'p', sources_touched: '["b","a"]' } } }], attestation_manifest: [] }];
    for (const doc of shapes) {
      const r = verifySep3004(doc);
      expect(r.ok).toBe(false);
      expect(r.checks.map((c) => c.id)).toEqual(['C-REC-1', 'C-REC-2', 'C-REC-3', 'C-REC-4', 'C-REC-5', 'C-REC-6', 'C-REC-7']);
    }
    const date = verifySep3004(shapes[7]);
    expect(status(date, 'C-REC-1')).toBe('fail');
    const sources = verifySep3004(shapes[9]);
    expect(sources.checks[0].findings.map((f) => f.message)).toContain('extension caller-governance: sources_touched is not deduplicated, sorted and minimally escaped');
  });
});

