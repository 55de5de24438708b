// Audit bundles end to end: 1,000 varied decisions (and execution entries) made through decide()
// export, verify and replay with every decision `match`; removing, reordering, duplicating or
// changing a byte of any entry, or swapping the checkpoint, the documents or the engine, is
// found and named.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportBundle, RUNNING_ENGINES, verifyBundle, type BundleReader, type BundleReport } from '../../src/audit/index.js';
import { decodeBase64, encodeBase64 } from '../../src/audit/_base64.js';
import { createDirSink, openBundleDir, storeExportSource } from '../../src/audit/node-bundle.js';
import { toJwks } from '../../src/crypto/index.js';
import { keyRecordsOf } from '../../src/audit/export.js';
import { decodeEntry, formatVkey, parseNote, signNote } from '../../src/log/index.js';
import { testKeys } from '../helpers/keys.js';
import { recordExecution } from '../../src/execution/index.js';
import { parseTrust } from '../../src/receipt/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { loadKeys, logPath, openSqliteStore } from '../../src/store/node.js';
import { generateLog } from './_generate.js';

const EXECUTIONS = 30;
let dir: string;
let bundle: string;
let lines: string[];
let trusted: ReturnType<typeof parseTrust>;
let otherTrust: ReturnType<typeof parseTrust>;
let otherCheckpoint: string;
let olderCheckpoint: string;

/** The origin of a data directory's `default` log: the key name its checkpoints are signed under. */
const originOf = (d: string) => {
  const store = openSqliteStore(logPath(d, 'default'), { readonly: true });
  try {
    return store.meta('origin')!;
  } finally {
    store.close();
  }
};

/** The log's own keys (the key files under its origin's name), as a bundle and a verifier carry them. */
const keysOf = (d: string) => {
  const { keys } = loadKeys(d, originOf(d));
  return { vkeys: keys.map((k) => k.vkey), jwks: toJwks(keys.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }))) };
};

async function exportDir(d: string, opts: { from?: number; to?: number; payloads?: boolean } = {}): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'vouch-bundle-')), 'b');
  const store = openSqliteStore(logPath(d, 'default'), { readonly: true });
  try {
    await exportBundle(storeExportSource(store, store.meta('origin')!), createDirSink(out), { payloads: true, ...opts, keys: keysOf(d), tool: { name: 'vouch', version: 'test' } });
  } finally {
    store.close();
  }
  return out;
}

beforeAll(async () => {
  const g = await generateLog(1000, { concurrency: 250 });
  dir = g.dir;
  const t = g.dataDir.log('default');
  const port = logPortOf(t.origin, t.store, t.appender);
  // Execution reports for allowed decisions, some drifting from what was authorized.
  let n = 0;
  for (const e of [...t.store.entries(0, t.store.size())]) {
    const x = decodeEntry(e.bytes) as any;
    if (x.type !== 'decision' || x.decision.effect !== 'allow' || x.event !== 'tools/call' || n >= EXECUTIONS) continue;
    const intent = JSON.parse(new TextDecoder().decode(t.store.payload(x.intent.digest)!));
    const executed = n % 3 === 0 ? { ...intent, arguments: { ...intent.arguments, extra: n } } : intent;
    await recordExecution({ log: port, authorization: x.seq, executed, time: x.time, tenant: 'default', principal: x.principal });
    n++;
  }
  const checkpoints = [...t.store.checkpoints()];
  olderCheckpoint = checkpoints[checkpoints.length - 2].note;
  await g.close();
  bundle = await exportDir(dir);
  lines = readFileSync(join(bundle, 'entries.jsonl'), 'utf8').split('\n').filter(Boolean);
  trusted = parseTrust(keysOf(dir).vkeys.join('\n'));
  const other = await generateLog(3, { concurrency: 3 });
  await other.close();
  otherTrust = parseTrust(keysOf(other.dir).vkeys.join('\n'));
  otherCheckpoint = readFileSync(join(await exportDir(other.dir), 'checkpoint'), 'utf8');
}, 180_000);

/** The bundle with one file replaced in memory: no copies on disk per tamper case. */
function tampered(base: string, swap: { lines?: string[]; texts?: Record<string, string>; bytes?: Record<string, Uint8Array> }): BundleReader {
  const r = openBundleDir(base);
  return {
    text: async (name) => swap.texts?.[name] ?? r.text(name),
    bytes: async (path) => swap.bytes?.[path] ?? r.bytes(path),
    lines: (name) => (name === 'entries.jsonl' && swap.lines ? (async function* () { yield* swap.lines!; })() : r.lines(name)),
  };
}

const verify = (reader: BundleReader, replay = false) => verifyBundle(reader, { trusted, replay });
const named = (r: BundleReport, seq: number) => r.findings.some((f) => f.seq === seq);

describe('a bundle of 1,000 varied decisions', () => {
  let report: BundleReport;
  beforeAll(async () => {
    report = await verifyBundle(openBundleDir(bundle), { trusted });
  }, 60_000);

  it('verifies clean against the trusted key and replays every decision to match', () => {
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.entries).toBe(1 + 1000 + EXECUTIONS);
    expect(report.replay).toMatchObject({ decisions: 1000, match: 1000, mismatch: 0, unreplayable: 0, other: { policy: 1, execution: EXECUTIONS } });
    expect(report.keysFrom).toBe('trusted key');
    expect(report.signedBy.some((s) => s.endsWith('(trusted key)'))).toBe(true);
  });

  it('holds what the layout promises', () => {
    const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    expect(m).toMatchObject({ format: 'vouch-audit-bundle', version: 1, range: { from: 0, to: 1031 }, payloads: true, counts: { entries: 1031, payloads: 1000, erased: 0, chains: 1, policies: 1 } });
    expect(JSON.parse(readFileSync(join(bundle, 'range.json'), 'utf8'))).toEqual({ size: 0, hashes: [], prevLeaf: '0'.repeat(64) });
    expect(readFileSync(join(bundle, 'README.md'), 'utf8')).toContain('vouch verify');
    expect(JSON.parse(lines[5])).toEqual({ seq: 5, entry: expect.any(String) });
  });

  it('names the algorithms and key ids that verified, and says truncation was not checked', () => {
    expect(report.verdict).toBe('clean');
    expect(report.keysPinned).toBe(true);
    expect(report.truncation).toBe('not checked');
    expect(report.classicalOnly).toBe(false);
    const ids = loadKeys(dir, originOf(dir)).keys.map((k) => `${k.alg} ${k.keyId}`);
    expect(report.signatures.filter((x) => x.source === 'trusted key').map((x) => `${x.alg} ${x.keyId}`)).toEqual(ids);
    expect(report.signatures.filter((x) => x.source === 'bundle key').map((x) => `${x.alg} ${x.keyId}`)).toEqual(ids);
  });

  it('without a trusted key: "self-consistent, keys not pinned", not ok unless the bundle keys are trusted explicitly', async () => {
    const r = await verifyBundle(openBundleDir(bundle), { replay: false });
    expect(r).toMatchObject({ ok: false, verdict: 'self-consistent, keys not pinned', keysPinned: false, keysFrom: 'bundle', findings: [] });
    expect(r.notes.join('\n')).toContain('keys that came inside the bundle itself');
    const accepted = await verifyBundle(openBundleDir(bundle), { replay: false, trustBundleKeys: true });
    expect(accepted).toMatchObject({ ok: true, verdict: 'self-consistent, keys not pinned', truncation: 'not checked' });
  });

  it('re-signed by an attacker with their own keys: never "clean"; against the pinned key, a finding', async () => {
    const attacker = testKeys(originOf(dir), 90); // their own keys under the log's key name
    const vkeys = attacker.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey));
    const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    m.keys = keyRecordsOf(vkeys);
    const note = readFileSync(join(bundle, 'checkpoint'), 'utf8');
    const resigned = await signNote(parseNote(note).text, attacker.signers);
    const jwks = toJwks(attacker.verifiers.map((v) => ({ alg: v.alg, publicKey: v.publicKey, kid: v.alg })));
    const texts = { 'manifest.json': JSON.stringify(m), 'keys.json': JSON.stringify({ vkeys, jwks }), checkpoint: resigned };
    const unpinned = await verifyBundle(tampered(bundle, { texts }), { replay: false });
    expect(unpinned).toMatchObject({ ok: false, verdict: 'self-consistent, keys not pinned', findings: [] });
    const pinned = await verifyBundle(tampered(bundle, { texts }), { trusted, replay: false });
    expect(pinned).toMatchObject({ ok: false, verdict: 'findings' });
    expect(pinned.findings.map((f) => f.check)).toEqual(['trusted-key']);
  });

  it('the checkpoint with its ML-DSA-65 line removed: a finding under the bundle keys and the pinned key, unless classicalOk', async () => {
    const note = readFileSync(join(bundle, 'checkpoint'), 'utf8');
    // Both post-quantum lines (ML-DSA-65 and ML-DSA-44) go: only the Ed25519 line (64-byte signature) stays.
    const { text, signatures } = parseNote(note);
    const ed = note.split('\n').filter((line, i, all) => line.startsWith('\u2014 ') && signatures[all.slice(0, i).filter((x) => x.startsWith('\u2014 ')).length]?.signature.length === 64);
    const stripped = `${text}\n${ed.join('\n')}\n`;
    expect(parseNote(stripped).signatures).toHaveLength(1);
    const r = await verifyBundle(tampered(bundle, { texts: { checkpoint: stripped } }), { trusted, replay: false });
    expect(r.findings.map((f) => f.check)).toEqual(['signature', 'trusted-key']);
    expect(r.findings[1].message).toMatch(/no valid ML-DSA-65 signature.* or ML-DSA-44 signature/);
    const classical = await verifyBundle(tampered(bundle, { texts: { checkpoint: stripped } }), { trusted, replay: false, classicalOk: true });
    expect(classical).toMatchObject({ ok: true, verdict: 'clean', classicalOnly: true });
    expect(classical.signatures.map((x) => x.alg)).toEqual(['Ed25519', 'Ed25519']);
  });

  it('fails against a key that did not sign it', async () => {
    const r = await verifyBundle(openBundleDir(bundle), { trusted: otherTrust, replay: false });
    expect(r.findings.map((f) => f.check)).toEqual(['trusted-key']);
  });
});

describe('tampering with a bundle is found and named', () => {
  it('a removed entry', async () => {
    const r = await verify(tampered(bundle, { lines: lines.filter((_, i) => i !== 500) }));
    expect(r.ok).toBe(false);
    expect(r.findings).toContainEqual(expect.objectContaining({ check: 'seq', seq: 501 }));
    expect(r.findings.some((f) => f.check === 'root' || f.check === 'seq')).toBe(true);
    expect(r.findings.length).toBeLessThan(6); // named where it is, not on each of the 530 lines after it
  });

  it('two entries swapped', async () => {
    const l = [...lines];
    [l[300], l[301]] = [l[301], l[300]];
    const r = await verify(tampered(bundle, { lines: l }));
    expect(named(r, 300) && named(r, 301)).toBe(true);
  });

  it('a duplicated entry', async () => {
    const l = [...lines];
    l.splice(700, 0, l[700]);
    const r = await verify(tampered(bundle, { lines: l }));
    expect(r.findings).toContainEqual(expect.objectContaining({ check: 'seq', seq: 700 }));
  });

  it('the last entry dropped (range shortened)', async () => {
    const r = await verify(tampered(bundle, { lines: lines.slice(0, -1) }));
    expect(r.findings.map((f) => f.check)).toContain('seq');
  });

  it('one changed byte in any of a spread of entries, first and last included', async () => {
    const missed: string[] = [];
    for (const seq of [0, 1, 2, 137, 500, 501, 999, lines.length - 2, lines.length - 1]) {
      const bytes = decodeBase64(JSON.parse(lines[seq]).entry);
      for (const at of [0, 1, bytes.length >> 2, bytes.length >> 1, bytes.length - 2, bytes.length - 1]) {
        const b = bytes.slice();
        b[at] ^= 0x01;
        const l = [...lines];
        l[seq] = JSON.stringify({ seq, entry: encodeBase64(b) });
        const r = await verify(tampered(bundle, { lines: l }));
        if (!named(r, seq)) missed.push(`seq ${seq} byte ${at}: ${JSON.stringify(r.findings)}`);
      }
    }
    expect(missed).toEqual([]);
  }, 120_000); // 54 whole-bundle verifies

  it('one changed byte of the line text itself', async () => {
    const missed: string[] = [];
    for (const seq of [3, 640, lines.length - 1]) {
      for (let at = 0; at < lines[seq].length; at += 97) {
        const l = [...lines];
        l[seq] = l[seq].slice(0, at) + String.fromCharCode(l[seq].charCodeAt(at) ^ 0x01) + l[seq].slice(at + 1);
        const r = await verify(tampered(bundle, { lines: l }));
        if (r.ok || !r.findings.some((f) => f.seq === seq || f.seq === seq + 1 || f.check === 'entry')) missed.push(`seq ${seq} char ${at}: ${JSON.stringify(r.findings)}`);
      }
    }
    expect(missed).toEqual([]);
  }, 120_000); // about 75 whole-bundle verifies: 34 s on a loaded 2-core machine

  it('a checkpoint from another log', async () => {
    const r = await verify(tampered(bundle, { texts: { checkpoint: otherCheckpoint } }));
    expect(r.findings.map((f) => f.check)).toEqual(expect.arrayContaining(['signature', 'trusted-key', 'checkpoint']));
  });

  it('an older checkpoint of the same log', async () => {
    const r = await verify(tampered(bundle, { texts: { checkpoint: olderCheckpoint } }));
    expect(r.findings).toContainEqual(expect.objectContaining({ check: 'checkpoint', message: expect.stringContaining('signs size') }));
  });

  it('a manifest that lies about the counts', async () => {
    const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    m.counts.byType.decision = 999;
    const r = await verify(tampered(bundle, { texts: { 'manifest.json': JSON.stringify(m) } }));
    expect(r.findings.map((f) => f.check)).toEqual(['manifest']);
  });

  it('policy and chain documents changed after the fact never replay to match', async () => {
    const m = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    expect(m.counts.policies).toBe(1);
    const entry1 = decodeEntry(decodeBase64(JSON.parse(lines[1]).entry)) as any;
    const policyPath = `policies/${entry1.policy.policySet.replace(':', '-')}`;
    const chainPath = `chains/${entry1.policy.chain.replace(':', '-')}.json`;
    const policy = readFileSync(join(bundle, policyPath), 'utf8');
    const chain = JSON.parse(readFileSync(join(bundle, chainPath), 'utf8'));
    chain.policies.inline.policies = chain.policies.inline.policies.replace('Tool::"send_mail", ', '');
    for (const swap of [{ [policyPath]: new TextEncoder().encode(policy.replace('send_mail', 'send_fax')) }, { [chainPath]: new TextEncoder().encode(JSON.stringify(chain)) }]) {
      const r = await verifyBundle(tampered(bundle, { bytes: swap }), { trusted, maxFindings: 5000 });
      expect(r.ok).toBe(false);
      expect(r.replay!.match).toBe(0);
      expect(r.findings.some((f) => f.check === 'document')).toBe(true);
      expect(r.findings.filter((f) => f.check === 'replay').length).toBe(1000);
    }
  }, 60_000);

  it('a changed payload is named by replay', async () => {
    const payloads = readFileSync(join(bundle, 'payloads.jsonl'), 'utf8').split('\n').filter(Boolean);
    const p = JSON.parse(payloads[10]);
    const text = new TextDecoder().decode(decodeBase64(p.payload)).replace('"name":"', '"name":"x');
    payloads[10] = JSON.stringify({ ...p, payload: encodeBase64(new TextEncoder().encode(text)) });
    const base = openBundleDir(bundle);
    const reader: BundleReader = { ...base, lines: (name) => (name === 'payloads.jsonl' ? (async function* () { yield* payloads; })() : base.lines(name)) };
    const r = await verifyBundle(reader, { trusted });
    expect(r.findings).toEqual([expect.objectContaining({ check: 'replay', seq: p.seq, message: expect.stringContaining('payload digest mismatch') })]);
  }, 60_000);

  it('another engine version: nothing replays to match, and the report says why', async () => {
    const r = await verifyBundle(openBundleDir(bundle), { trusted, engines: { ...RUNNING_ENGINES, cedar: '0.0.1' } });
    expect(r.replay).toMatchObject({ match: 0, unreplayable: 1000, byReason: { 'engine version absent': 1000 } });
    expect(r.notes.join('\n')).toContain('engine version absent');
  }, 60_000);
});

describe('a bundle of a sub-range', () => {
  it('starts from the compact range of [0, from) and verifies and replays', async () => {
    const sub = await exportDir(dir, { from: 400, to: 700 });
    const m = JSON.parse(readFileSync(join(sub, 'manifest.json'), 'utf8'));
    expect(m.range.from).toBe(400);
    expect(m.range.to).toBeGreaterThanOrEqual(700);
    const r = await verifyBundle(openBundleDir(sub), { trusted });
    expect(r.findings).toEqual([]);
    expect(r.replay!.match).toBe(r.replay!.decisions);
    const range = JSON.parse(readFileSync(join(sub, 'range.json'), 'utf8'));
    const badRange = { ...range, hashes: [range.hashes[1], range.hashes[0], ...range.hashes.slice(2)] };
    const r2 = await verify(tampered(sub, { texts: { 'range.json': JSON.stringify(badRange) } }));
    expect(r2.findings.map((f) => f.check)).toEqual(['root']);
    const r3 = await verify(tampered(sub, { texts: { 'range.json': JSON.stringify({ ...range, prevLeaf: '1'.repeat(64) }) } }));
    expect(r3.findings).toEqual([expect.objectContaining({ check: 'link', seq: 400 })]);
  }, 60_000);
});

afterAll(() => undefined);
