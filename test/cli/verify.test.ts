// `vouch verify RECEIPT`: the checklist, exit codes (0 valid, 1 invalid, 2 usage, 3 unreadable),
// tlog-proof input, --origin, --checkpoint (fork evidence) and --caller-key; in-process through
// main() and, for a few, as the installed binary in a child process.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes, fromBase64, toBase64 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { createEd25519Signer, toJwks } from '../../src/crypto/index.js';
import { decide, runPrechecks } from '../../src/decide/index.js';
import { parseDriftConfig } from '../../src/execution/index.js';
import { formatVkey, signCheckpoint } from '../../src/log/index.js';
import { formatTlogProof, type Receipt } from '../../src/receipt/index.js';
import { EMPTY_POLICY, keys, ORIGIN, T } from '../execution/_log.js';
import { logWithReceipts } from '../receipt/_receipts.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vouch-verify-cli-'));
const file = (name: string, content: string | object) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

let l: Awaited<ReturnType<typeof logWithReceipts>>;
let receipt: Receipt;
let receiptPath: string;
const vkeyPath = file('vkeys.txt', keys.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n') + '\n');
const caller = createEd25519Signer(new Uint8Array(32).fill(5));
const callerJwks = file('caller.jwks', toJwks([{ alg: 'Ed25519', publicKey: caller.publicKey, kid: 'app' }]));
const strangerJwks = file('stranger.jwks', toJwks([{ alg: 'Ed25519', publicKey: createEd25519Signer(new Uint8Array(32).fill(6)).publicKey, kid: 'app' }]));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['verify', ...argv], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function spawnCli(...argv: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/vouch.js', 'verify', ...argv], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (e, stdout) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out: stdout }));
  });
}

beforeAll(async () => {
  l = await logWithReceipts(6);
  receipt = await l.receipt(1, 3);
  receiptPath = file('receipt.json', receipt);
});
afterAll(() => l.log.close());

describe('vouch verify RECEIPT', () => {
  it('valid: exit 0 and a checklist of ✓', async () => {
    const r = await cli(receiptPath, '--key', vkeyPath);
    expect(r.code).toBe(0);
    for (const name of ['format', 'entry', 'leaf-hash', 'index', 'checkpoint-signature', 'origin', 'inclusion', 'checkpoint-signers']) expect(r.out).toMatch(new RegExp(`\u2713 ${name} `));
    expect(r.out).toMatch(/signed by: test\.vouch \(ML-DSA-65 [0-9a-f]{8}\), test\.vouch \(Ed25519 [0-9a-f]{8}\)/);
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65 \+ Ed25519; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)$/);
  });

  it('the ML-DSA-65 line removed: INVALID with the vkeys and with the JWKS; VALID only with --classical-ok, which the verdict names', async () => {
    const lines = receipt.checkpoint.split('\n');
    const stripped = file('stripped.json', { ...receipt, checkpoint: [...lines.slice(0, -3), lines[lines.length - 2], ''].join('\n') });
    const jwks = file('both.jwks', toJwks(keys.verifiers.map((v) => ({ alg: v.alg, publicKey: v.publicKey, kid: v.alg }))));
    for (const key of [vkeyPath, jwks]) {
      const r = await cli(stripped, '--key', key);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/\u2717 checkpoint-signature +no valid ML-DSA-65 signature by trusted key test\.vouch\+[0-9a-f]{8}/);
      const ok = await cli(stripped, '--key', key, '--classical-ok');
      expect(ok.code).toBe(0);
      expect(ok.out).toMatch(/\nVALID \(Ed25519; post-quantum: none, classical signatures only \(ML-DSA-65 or ML-DSA-44 required\), accepted by --classical-ok; truncation: not checked\)$/);
      expect(JSON.parse((await cli(stripped, '--key', key, '--classical-ok', '--json')).out)).toMatchObject({ ok: true, classicalOnly: true, signatures: [{ alg: 'Ed25519' }], truncation: 'not checked' });
    }
  });

  it('trusting only the ML-DSA-65 key verifies (vkey or JWKS); only the Ed25519 key needs --classical-ok', async () => {
    const ml = keys.verifiers.find((v) => v.alg === 'ML-DSA-65')!;
    const ed = keys.verifiers.find((v) => v.alg === 'Ed25519')!;
    const mlOnly = [file('ml.vkey', formatVkey(ml.name, ml.alg, ml.publicKey) + '\n'), file('ml.jwks', toJwks([{ alg: ml.alg, publicKey: ml.publicKey, kid: 'ml' }]))];
    for (const key of mlOnly) {
      const r = await cli(receiptPath, '--key', key);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/\nVALID \(ML-DSA-65; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)$/);
    }
    const edOnly = file('ed.vkey', formatVkey(ed.name, ed.alg, ed.publicKey) + '\n');
    expect((await cli(receiptPath, '--key', edOnly)).code).toBe(1);
    expect((await cli(receiptPath, '--key', edOnly, '--classical-ok')).out).toMatch(/classical signatures only/);
  });

  it('reads a tlog-proof@v1 file and a JWKS key file', async () => {
    const proof = file('receipt.proof', formatTlogProof(receipt));
    const jwks = file('keys.jwks', toJwks(keys.verifiers.map((v) => ({ alg: v.alg, publicKey: v.publicKey, kid: 'k' }))));
    expect((await cli(proof, '--key', jwks)).code).toBe(0);
  });

  it('invalid: exit 1, every failing check listed', async () => {
    const bytes = fromBase64(receipt.entry);
    bytes[20] ^= 1;
    const r = await cli(file('tampered.json', { ...receipt, entry: toBase64(bytes), proof: [...receipt.proof].reverse() }), '--key', vkeyPath);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\u2717 leaf-hash/);
    expect(r.out).toMatch(/\u2717 inclusion/);
    expect(r.out).toMatch(/INVALID: \d check\(s\) failed: .*leaf-hash.*inclusion/);
  });

  it('a wrong key: exit 1; another log with --origin: exit 1', async () => {
    const wrong = file('wrong.vkey', formatVkey('test.vouch', 'ML-DSA-65', keys.mldsaPublic.map((b) => b ^ 1)) + '\n');
    expect((await cli(receiptPath, '--key', wrong)).code).toBe(1);
    const r = await cli(receiptPath, '--key', vkeyPath, '--origin', 'test.vouch/globex');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\u2717 origin +expected log test\.vouch\/globex/);
    expect((await cli(receiptPath, '--key', vkeyPath, '--origin', ORIGIN)).code).toBe(0);
  });

  it('usage errors: exit 2', async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli(receiptPath)).code).toBe(2); // no --key
    expect((await cli(receiptPath, '--key', vkeyPath, '--bogus')).code).toBe(2);
    expect((await cli(receiptPath, receiptPath, '--key', vkeyPath)).code).toBe(2);
  });

  it('unreadable input: exit 3', async () => {
    expect((await cli(join(dir, 'missing.json'), '--key', vkeyPath)).code).toBe(3);
    expect((await cli(file('garbage.json', '{"v":1,'), '--key', vkeyPath)).code).toBe(3);
    expect((await cli(file('bad.proof', 'c2sp.org/tlog-proof@v1\nindex x\n'), '--key', vkeyPath)).code).toBe(3);
    expect((await cli(receiptPath, '--key', file('bad.keys', 'not a vkey'))).code).toBe(3);
    expect((await cli(receiptPath, '--key', vkeyPath, '--caller-key', file('bad.jwks', '{"keys": 3}'))).code).toBe(3);
  });

  it('a directory is an audit bundle: handed to verify-bundle when that command exists', async () => {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle, { recursive: true });
    const r = await cli(bundle);
    if (existsSync(new URL('../../src/cli/commands/verify-bundle.ts', import.meta.url))) expect(r.err).not.toMatch(/not available in this build/);
    else {
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/bundle .* not available in this build/);
    }
  });

  it('--json prints the report as one JSON document', async () => {
    const r = await cli(receiptPath, '--key', vkeyPath, '--json');
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ ok: true, verdict: 'VALID (ML-DSA-65 + Ed25519; post-quantum: ML-DSA-65 (ML-DSA-65 or ML-DSA-44 required); truncation: not checked)', truncation: 'not checked', classicalOnly: false, entry: { seq: 1, log: ORIGIN, type: 'decision' } });
    expect(doc.signatures.map((x: { alg: string }) => x.alg)).toEqual(['ML-DSA-65', 'Ed25519']);
    expect(doc.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });
});

describe('vouch verify --checkpoint NEWER', () => {
  it('accepts an honest newer checkpoint with its consistency proof', async () => {
    const r = await cli(receiptPath, '--key', vkeyPath, '--checkpoint', file('newer.json', await l.consistency(3, 6)));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\u2713 consistency/);
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65 \+ Ed25519; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: checked\)$/);
    expect(r.out).not.toMatch(/truncation: not checked/);
  });

  // A download that failed half way (curl -o on an error, a redirect to nothing) leaves an empty file.
  for (const [what, content] of [
    ['an empty checkpoint file', ''],
    ['a checkpoint file of blank lines', '\n \n'],
  ] as const) {
    it(`${what}: exit 3 (bad input), ERR_INPUT saying the file is empty and how to get it again`, async () => {
      const p = file('empty.note', content);
      const r = await cli(receiptPath, '--key', vkeyPath, '--checkpoint', p);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`ERR_INPUT: the checkpoint file ${p} is empty`);
      expect(r.err).toMatch(/fetch it again .*GET \/v1\/proofs\/consistency\?from=SIZE/);
      expect(r.err).toContain('signed note');
      expect(r.out).not.toMatch(/VALID|INVALID/);
    });
  }

  it('a forged checkpoint at the same size with another root: exit 1, both notes printed in full', async () => {
    const forged = await signCheckpoint({ origin: ORIGIN, size: 3, root: new Uint8Array(32).fill(1), extensions: [] }, keys.signers);
    const r = await cli(receiptPath, '--key', vkeyPath, '--checkpoint', file('forged.note', forged));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FORK EVIDENCE: two different roots were signed for size 3/);
    expect(r.out).toContain(receipt.checkpoint.trimEnd());
    expect(r.out).toContain(forged.trimEnd());
  });
});

describe('vouch verify --caller-key', () => {
  async function cosignedReceipt(): Promise<Receipt> {
    const payload = { name: 'echo', arguments: { text: 'hi' } };
    const claim = { alg: 'Ed25519' as const, keyId: 'app', signature: toBase64(await caller.sign(canonicalBytes(payload))) };
    const pre = await runPrechecks({ event: 'tools/call', phase: 'request', payload, meta: { 'io.vouch/caller-signature': claim } }, { tenant: 'acme', principal: 'app', log: l.log, drift: parseDriftConfig(undefined), callerKeys: async () => [{ alg: 'Ed25519', publicKey: caller.publicKey, kid: 'app' }] });
    const d = await decide({ event: 'tools/call', phase: 'request', payload, context: { time: T, tenant: 'acme' }, extra: pre.extra, guards: pre.guards }, { policy: EMPTY_POLICY, log: l.log });
    expect(d.effect).toBe('allow');
    return { ...d.receipt, callerSignature: pre.callerSignature };
  }

  it('checks both signatures: exit 0 with the caller key, 1 with another key or none', async () => {
    const p = file('cosigned.json', await cosignedReceipt());
    const ok = await cli(p, '--key', vkeyPath, '--caller-key', callerJwks);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/\u2713 caller-signature +caller key app \(Ed25519\) signed the entry's input/);
    expect((await cli(p, '--key', vkeyPath, '--caller-key', strangerJwks)).code).toBe(1);
    expect((await cli(p, '--key', vkeyPath)).code).toBe(1);
    // A receipt with no co-signature checked against a caller key: the co-signature is missing.
    const missing = await cli(receiptPath, '--key', vkeyPath, '--caller-key', callerJwks);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/\u2717 caller-signature +caller keys were given but the receipt carries no caller signature/);
  });
});

describe('as the installed binary', () => {
  it('exit 0 on a valid receipt, 1 on one changed byte of its signature', async () => {
    const lines = receipt.checkpoint.split('\n');
    const sig = lines.length - 3; // the ML-DSA line (an Ed25519 line follows)
    lines[sig] = lines[sig].slice(0, 60) + (lines[sig][60] === 'A' ? 'B' : 'A') + lines[sig].slice(61);
    const [good, bad] = await Promise.all([spawnCli(receiptPath, '--key', vkeyPath), spawnCli(file('badsig.json', { ...receipt, checkpoint: lines.join('\n') }), '--key', vkeyPath)]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/VALID/);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/\u2717 checkpoint-signature/);
  }, 60_000);
});
