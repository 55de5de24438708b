// Hostile input against every parser of untrusted text (fast-check): random and mutated inputs
// either parse or throw a VouchError with an ERR_* code (never a bare TypeError/RangeError), and
// a mutated signed input (receipt, note, tlog-proof) never verifies.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/audit/bundle-format.js';
import { parseJwks } from '../../src/crypto/index.js';
import { VouchError } from '../../src/errors.js';
import { Appender, formatVkey, hashLeaf, parseCheckpoint, parseNote, parseVkey, signNote, verifyNote } from '../../src/log/index.js';
import { loadPolicySet, parseConfig } from '../../src/policy/index.js';
import { buildReceipt, formatTlogProof, parseReceipt, parseTlogProof, verifyReceipt, type Receipt } from '../../src/receipt/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';
import { memoized } from '../receipt/_receipts.js';

const RUNS = { numRuns: 300 };
const keys = testKeys('fuzz.vouch', 11);
// One ML-DSA-65 key only: an unknown co-signature is legitimately ignored, so a second key would
// let a mutation of its line "verify" by the first one.
const mldsaOnly = memoized(keys.verifiers.slice(0, 1));
const bothKeys = memoized(keys.verifiers);

/** Calls f; a throw must be a coded VouchError. Returns whether it threw. */
function codedOrValue(f: () => unknown): boolean {
  try {
    f();
    return false;
  } catch (e) {
    if (!(e instanceof VouchError) || !/^ERR_[A-Z0-9_]+$/.test(e.code)) throw new Error(`uncoded throw: ${String(e)}`, { cause: e });
    return true;
  }
}

/** A text mutation: replace, insert or delete one character. */
const mutation = fc.record({ at: fc.nat(), op: fc.constantFrom('replace', 'insert', 'delete'), ch: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), fc.constantFrom('\n', ' ', '\u2014', 'A', '0', '=', '+', '/', '\u0000')) });
function mutate(s: string, m: { at: number; op: string; ch: string }): string {
  const i = m.at % (s.length + (m.op === 'insert' ? 1 : 0));
  if (m.op === 'insert') return s.slice(0, i) + m.ch + s.slice(i);
  if (m.op === 'delete') return s.slice(0, i) + s.slice(i + 1);
  return s.slice(0, i) + m.ch + s.slice(i + 1);
}

let receipt: Receipt;
let note: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-pfuzz-')), 'log.db'));
  const appender = Appender.open({ origin: 'fuzz.vouch/acme', storage: store, signers: keys.signers.slice(0, 1) });
  const log = logPortOf('fuzz.vouch/acme', store, appender);
  for (let i = 0; i < 5; i++) await log.append({ type: 'decision', time: '2026-11-30T12:00:00Z', tenant: 'acme', principal: `a${i}`, event: 'tools/call', decision: { effect: 'allow', status: 'success' } });
  const bytes = (await log.entry(2))!;
  const cp = (await log.checkpointAt(5))!;
  receipt = buildReceipt({ bytes, leaf: hashLeaf(bytes), seq: 2, proof: await log.inclusionProof(2, 5), checkpoint: cp.note });
  note = await signNote('fuzz.vouch/acme\n5\nAAAA\n', keys.signers);
  close = async () => (await appender.close(), store.close());
});
afterAll(() => close?.());

describe('parsers never throw uncoded errors', () => {
  const anything = fc.anything({ maxDepth: 4 });
  it('parseReceipt / verifyReceipt on random values', () => {
    fc.assert(fc.property(anything, (v) => {
      codedOrValue(() => parseReceipt(v));
      expect(verifyReceipt(v, { verifiers: mldsaOnly }).ok).toBe(false);
    }), RUNS);
  });
  it('parseNote, parseCheckpoint, parseVkey, parseTlogProof on random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => {
      codedOrValue(() => parseNote(s));
      codedOrValue(() => parseCheckpoint(s));
      codedOrValue(() => parseVkey(s));
      codedOrValue(() => parseTlogProof(s, hashLeaf));
      expect(codedOrValue(() => verifyNote(s, bothKeys))).toBe(true);
    }), RUNS);
  });
  it('parseJwks, parseConfig, parseManifest on random values', () => {
    fc.assert(fc.property(anything, (v) => {
      codedOrValue(() => parseJwks(v));
      codedOrValue(() => parseConfig(v));
      codedOrValue(() => parseManifest(v));
    }), RUNS);
  });
  it('parseConfig on mutations of the example config', () => {
    const example = parseYaml(readFileSync(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url), 'utf8'));
    const text = JSON.stringify(example);
    fc.assert(fc.property(mutation, (m) => {
      let v: unknown;
      try {
        v = JSON.parse(mutate(text, m));
      } catch {
        return;
      }
      codedOrValue(() => parseConfig(v));
    }), RUNS);
  });
  it('loadPolicySet on random and mutated Cedar text', () => {
    const good = 'permit(principal, action == Action::"call", resource) when { context.args.n < 10 };\nforbid(principal, action, resource) unless { principal.role == "admin" };';
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 200 }), mutation.map((m) => mutate(good, m))), (policies) => {
      codedOrValue(() => loadPolicySet({ policies }));
    }), { numRuns: 150 });
  });
  it('parseVkey and parseJwks on mutations of real keys', () => {
    const vkey = formatVkey('fuzz.vouch', 'ML-DSA-65', keys.mldsaPublic);
    fc.assert(fc.property(mutation, (m) => void codedOrValue(() => parseVkey(mutate(vkey, m)))), RUNS);
  });
});

describe('a mutated signed input never verifies', () => {
  it('the untouched receipt, note and tlog-proof verify (the baseline)', () => {
    expect(verifyReceipt(receipt, { verifiers: mldsaOnly }).ok).toBe(true);
    expect(verifyNote(note, bothKeys, { strict: true }).verifiedBy).toEqual(['fuzz.vouch']);
    expect(verifyReceipt(parseTlogProof(formatTlogProof(receipt), hashLeaf), { verifiers: mldsaOnly }).ok).toBe(true);
  });
  it('receipt: one field mutated (text edit or a random value)', () => {
    const fields = ['entry', 'leafHash', 'index', 'checkpoint', 'proof'] as const;
    fc.assert(fc.property(fc.constantFrom(...fields), fc.nat(), mutation, fc.option(fc.jsonValue({ maxDepth: 2 })), (field, pick, m, value) => {
      const r = structuredClone(receipt) as unknown as Record<string, unknown>;
      if (value !== null) r[field] = value;
      else if (field === 'index') r.index = (receipt.index + 1 + (pick % 7)) as number;
      else if (field === 'proof') {
        const proof = [...receipt.proof];
        if (proof.length === 0) return;
        const i = pick % proof.length;
        proof[i] = mutate(proof[i], m);
        r.proof = proof;
      } else r[field] = mutate(receipt[field] as string, m);
      if (JSON.stringify(r) === JSON.stringify(receipt)) return;
      expect(verifyReceipt(r, { verifiers: mldsaOnly }).ok).toBe(false);
    }), { numRuns: 500 });
  });
  it('signed note: any one-character edit is rejected (strict, both keys)', () => {
    fc.assert(fc.property(mutation, (m) => {
      const s = mutate(note, m);
      if (s === note) return;
      expect(codedOrValue(() => verifyNote(s, bothKeys, { strict: true }))).toBe(true);
    }), { numRuns: 500 });
  });
  it('tlog-proof text: any one-character edit fails to parse or to verify', () => {
    const text = formatTlogProof(receipt);
    fc.assert(fc.property(mutation, (m) => {
      const s = mutate(text, m);
      if (s === text) return;
      let parsed: Receipt | undefined;
      codedOrValue(() => (parsed = parseTlogProof(s, hashLeaf)));
      if (parsed) expect(verifyReceipt(parsed, { verifiers: mldsaOnly }).ok).toBe(false);
    }), { numRuns: 500 });
  });
});
