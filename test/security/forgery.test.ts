// Issue 15 items 1, 4 and 6 as an attacker plays them against a real data directory: the
// ML-DSA-65 line stripped from a receipt's checkpoint (and from a stored one, and a bundle's), a
// brand-new allow entry forged with the Ed25519 key read from keys/ed25519.key, and a bundle
// re-signed with the attacker's own keys. `vouch verify` (vkeys, the service's JWKS), `vouch
// log verify` and `vouch verify BUNDLE` must all refuse them; each passed on the old code.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportBundle } from '../../src/audit/index.js';
import { createDirSink, storeExportSource } from '../../src/audit/node-bundle.js';
import { main } from '../../src/cli/main.js';
import { jwksKid, toJwks } from '../../src/crypto/index.js';
import { toHex } from '../../src/canonical/index.js';
import { consistencyProof, decodeEntry, formatVkey, parseNote, signNote } from '../../src/log/index.js';
import { parseTrust, verifiersFor, verifyReceipt, verifyReceiptFully, type Receipt } from '../../src/receipt/index.js';
import { loadKeys, logPath, openSqliteStore } from '../../src/store/node.js';
import { captureIo, generateLog } from '../audit/_generate.js';
import { testKeys } from '../helpers/keys.js';
import { forgeNextEntry, overwriteNewestNote, receiptOf, strippedReceipt, stripPostQuantum } from './_forge.js';

const work = mkdtempSync(join(tmpdir(), 'vouch-forgery-'));
const file = (name: string, content: string | object) => {
  const p = join(work, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

let dir: string; // the service's data directory; the forged entry is appended here
let strippedDir: string; // a copy whose newest stored checkpoint lost its ML-DSA-65 line
let cleanDir: string; // an untouched copy
let honest: Receipt;
let forged: Receipt;
let jwksPath: string;
let vkeysPath: string;
let mlOnlyPath: string;
let honestBundle: string;
let forgedBundle: string;
let exportKeys: { vkeys: string[]; jwks: ReturnType<typeof toJwks> };
let origin: string; // the log's origin: its checkpoints' key name

let olderBundle: string; // ends at an older checkpoint of the same log
let newerHonest: string; // the newest honest checkpoint with its consistency proof from the older one

function exportTo(d: string, name: string, to?: number): Promise<string> {
  const out = join(work, name);
  const store = openSqliteStore(logPath(d, 'default'), { readonly: true });
  return exportBundle(storeExportSource(store, store.meta('origin')!), createDirSink(out), { payloads: false, keys: exportKeys, tool: { name: 'vouch', version: 'test' }, ...(to !== undefined && { to }) })
    .then(() => out)
    .finally(() => store.close());
}

beforeAll(async () => {
  const g = await generateLog(24, { concurrency: 8 });
  dir = g.dir;
  const t = g.dataDir.log('default');
  const deny = [...t.store.entries(0, t.store.size())].map((e) => decodeEntry(e.bytes) as Record<string, any>).find((e) => e.type === 'decision' && e.decision.effect === 'deny')!;
  honest = receiptOf(t.store, deny.seq);
  jwksPath = file('jwks.json', g.dataDir.jwks()); // what GET /.well-known/vouch/keys serves
  origin = t.origin;
  const { keys } = loadKeys(dir, origin); // the log's keys, under the name its checkpoints carry: its origin
  exportKeys = { vkeys: keys.map((k) => k.vkey), jwks: toJwks(keys.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }))) };
  vkeysPath = file('vkeys.txt', keys.map((k) => k.vkey).join('\n') + '\n');
  mlOnlyPath = file('ml.vkey', keys.find((k) => k.alg === 'ML-DSA-65')!.vkey + '\n');
  await g.close();
  honestBundle = await exportTo(dir, 'honest-bundle');
  {
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      const cps = [...store.checkpoints()];
      const older = cps[Math.floor(cps.length / 2)];
      const newest = cps[cps.length - 1];
      expect(older.size).toBeLessThan(newest.size);
      olderBundle = await exportTo(dir, 'older-bundle', older.size);
      newerHonest = file('newer.json', { from: older.size, to: newest.size, proof: consistencyProof(older.size, newest.size, store).map(toHex), checkpoint: newest.note });
    } finally {
      store.close();
    }
  }

  strippedDir = join(work, 'stripped-data');
  cpSync(dir, strippedDir, { recursive: true });
  cleanDir = join(work, 'clean-data');
  cpSync(dir, cleanDir, { recursive: true });
  overwriteNewestNote(logPath(strippedDir, 'default'), stripPostQuantum);

  // The forger: the deny decision again as a new entry that says allow, signed with the Ed25519 key only.
  const store = openSqliteStore(logPath(dir, 'default'));
  try {
    const { v, log, seq, prev, heads, ...body } = deny;
    const f = await forgeNextEntry(dir, store, { ...body, decision: { ...body.decision, effect: 'allow' } });
    store.appendBatch(f.batch);
    forged = f.receipt;
  } finally {
    store.close();
  }
  forgedBundle = await exportTo(dir, 'forged-bundle');
}, 120_000);

afterAll(() => undefined);

describe('receipts: post-quantum is not optional', () => {
  it('the honest receipt verifies under the JWKS, the vkeys and the ML-DSA-65 key alone, naming what verified', async () => {
    for (const key of [jwksPath, vkeysPath, mlOnlyPath]) {
      const r = await vouch('verify', file('honest.json', honest), '--key', key);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/\nVALID \(ML-DSA-65( \+ Ed25519 \+ ML-DSA-44)?; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)$/);
    }
    const doc = JSON.parse((await vouch('verify', file('honest.json', honest), '--key', jwksPath, '--json')).out);
    const { keys } = loadKeys(dir, origin);
    // The JWKS carries each key's history in this log (issue 18): both sign from size 0 on; and its kid (issue 37).
    expect(doc.signatures).toEqual(keys.map((k) => ({ name: k.name, alg: k.alg, keyId: k.keyId, window: { from: 0 }, kid: jwksKid('vouch.local', k.alg, k.publicKey) })));
    expect(doc).toMatchObject({ ok: true, classicalOnly: false, truncation: 'not checked' });
  });

  it('the ML-DSA-65 line stripped: INVALID under the JWKS and the vkeys; only --classical-ok accepts it, and says so', async () => {
    const p = file('stripped.json', strippedReceipt(honest));
    for (const key of [jwksPath, vkeysPath]) {
      const r = await vouch('verify', p, '--key', key);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/\u2717 checkpoint-signature +no valid ML-DSA-65 signature by trusted key vouch\.local\/default\+[0-9a-f]{8}/);
      const weak = await vouch('verify', p, '--key', key, '--classical-ok', '--json');
      expect(weak.code).toBe(0);
      expect(JSON.parse(weak.out)).toMatchObject({ ok: true, classicalOnly: true, verdict: expect.stringContaining('classical signatures only'), signatures: [{ alg: 'Ed25519' }] });
    }
    expect((await vouch('verify', p, '--key', mlOnlyPath)).code).toBe(1);
  });

  it('a new entry forged with the Ed25519 key alone: INVALID under the JWKS and the vkeys', async () => {
    expect(decodeEntry(Uint8Array.from(Buffer.from(forged.entry, 'base64'))).decision).toMatchObject({ effect: 'allow' });
    expect(parseNote(forged.checkpoint).signatures).toHaveLength(1);
    const p = file('forged.json', forged);
    for (const key of [jwksPath, vkeysPath, mlOnlyPath]) {
      const r = await vouch('verify', p, '--key', key);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/\u2717 checkpoint-signature/);
    }
    // The library path the browser console runs (verifyReceipt and verifyReceiptFully) agrees.
    const trust = parseTrust(readFileSync(jwksPath, 'utf8'));
    expect(verifyReceipt(forged, { verifiers: verifiersFor(trust, forged.checkpoint) }).ok).toBe(false);
    expect(verifyReceiptFully({ receipt: forged, trust }).ok).toBe(false);
    expect(verifyReceiptFully({ receipt: strippedReceipt(honest), trust }).ok).toBe(false);
  });
});

describe('vouch log verify agrees', () => {
  it('the untouched copy is clean', async () => {
    const r = await vouch('log', 'verify', '--data', cleanDir, '--json');
    expect(r.code, r.out).toBe(0);
  });

  it('the stored checkpoint stripped of its ML-DSA-65 line is a finding', async () => {
    const r = await vouch('log', 'verify', '--data', strippedDir, '--json');
    expect(r.code).toBe(1);
    const findings = JSON.parse(r.out).logs[0].findings;
    expect(findings).toContainEqual(expect.objectContaining({ kind: 'signature', message: expect.stringMatching(/ML-DSA-65|no signature line by/) }));
  });

  it('the forged Ed25519-only entry is a finding', async () => {
    const r = await vouch('log', 'verify', '--data', dir, '--json');
    expect(r.code).toBe(1);
    const findings = JSON.parse(r.out).logs[0].findings;
    expect(findings).toContainEqual(expect.objectContaining({ kind: 'signature', checkpoint: forged.index + 1 }));
  });
});

describe('bundles agree, and keys must be pinned', () => {
  it('the honest bundle: clean with --key; without it "self-consistent, keys not pinned" and exit 1; --trust-bundle-keys accepts', async () => {
    const pinned = await vouch('verify', honestBundle, '--key', jwksPath);
    expect(pinned.code, pinned.out).toBe(0);
    expect(pinned.out).toMatch(/checkpoint signed by vouch\.local\/default \(ML-DSA-65 [0-9a-f]{8}, bundle key\)/);
    expect(pinned.out).toMatch(/verify bundle: clean \(truncation: not checked\)$/);
    const bare = await vouch('verify', honestBundle);
    expect(bare.code).toBe(1);
    expect(bare.out).toMatch(/verify bundle: self-consistent, keys not pinned: pass --key/);
    const accepted = await vouch('verify', honestBundle, '--trust-bundle-keys', '--json');
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.out)).toMatchObject({ ok: true, verdict: 'self-consistent, keys not pinned', keysPinned: false, truncation: 'not checked' });
  });

  it('the bundle checkpoint stripped of its ML-DSA-65 line, and the bundle of the forged entry: findings, with or without --key', async () => {
    const stripped = join(work, 'stripped-bundle');
    cpSync(honestBundle, stripped, { recursive: true });
    const note = readFileSync(join(stripped, 'checkpoint'), 'utf8');
    writeFileSync(join(stripped, 'checkpoint'), stripPostQuantum(note));
    for (const b of [stripped, forgedBundle]) {
      for (const extra of [['--key', jwksPath], ['--key', vkeysPath], [], ['--trust-bundle-keys']]) {
        const r = await vouch('verify', b, ...extra, '--no-replay', '--json');
        expect(r.code, `${b} ${extra.join(' ')}`).toBe(1);
        const doc = JSON.parse(r.out);
        expect(doc.verdict).toBe('findings');
        expect(doc.findings.map((f: { check: string }) => f.check)).toContain('signature');
        expect(doc.findings.find((f: { check: string }) => f.check === 'signature').message).toMatch(/no valid ML-DSA-65 signature/);
      }
    }
  });

  it('--checkpoint NEWER: an honest newer checkpoint checks truncation; a forged Ed25519-only one is a finding', async () => {
    const ok = await vouch('verify', olderBundle, '--key', jwksPath, '--checkpoint', newerHonest, '--no-replay', '--json');
    expect(ok.code, ok.out).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, verdict: 'clean', truncation: 'checked' });
    const text = await vouch('verify', olderBundle, '--key', jwksPath, '--checkpoint', newerHonest, '--no-replay');
    expect(text.out).toMatch(/verify bundle: clean \(truncation: checked\)$/);
    // The forged entry's checkpoint as the "newer" one: signed by Ed25519 alone, so it proves nothing.
    const bad = await vouch('verify', olderBundle, '--key', jwksPath, '--checkpoint', file('forged.note', forged.checkpoint), '--no-replay', '--json');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out).findings).toContainEqual(expect.objectContaining({ check: 'consistency', message: expect.stringMatching(/newer-checkpoint: .*no valid ML-DSA-65 signature/) }));
  });

  it('a bundle re-signed with the attacker\'s own keys: never clean; exit 1 unless the bundle keys are trusted on purpose', async () => {
    const attacker = testKeys(origin, 77); // their own keys under the log's key name
    const resigned = join(work, 'resigned-bundle');
    cpSync(honestBundle, resigned, { recursive: true });
    const vkeys = attacker.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey));
    const m = JSON.parse(readFileSync(join(resigned, 'manifest.json'), 'utf8'));
    m.keys = vkeys.map((vkey, i) => ({ alg: attacker.verifiers[i].alg, keyId: Buffer.from(attacker.verifiers[i].keyId).toString('hex'), vkey }));
    writeFileSync(join(resigned, 'manifest.json'), JSON.stringify(m));
    writeFileSync(join(resigned, 'keys.json'), JSON.stringify({ vkeys, jwks: toJwks(attacker.verifiers.map((v) => ({ alg: v.alg, publicKey: v.publicKey, kid: v.alg }))) }));
    const note = readFileSync(join(resigned, 'checkpoint'), 'utf8');
    writeFileSync(join(resigned, 'checkpoint'), await signNote(parseNote(note).text, attacker.signers));
    const bare = await vouch('verify', resigned, '--no-replay');
    expect(bare.code, bare.out).toBe(1);
    expect(bare.out).toMatch(/self-consistent, keys not pinned/);
    expect(bare.out).not.toMatch(/verify bundle: clean/);
    const pinned = await vouch('verify', resigned, '--key', jwksPath, '--no-replay');
    expect(pinned.code).toBe(1);
    expect(pinned.out).toMatch(/\[trusted-key\]/);
    expect((await vouch('verify', resigned, '--trust-bundle-keys', '--no-replay')).code).toBe(0);
    expect((await vouch('verify', resigned, '--trust-bundle-keys', '--key', jwksPath)).code).toBe(2);
  });
});
