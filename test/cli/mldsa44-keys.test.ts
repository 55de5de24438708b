// ML-DSA-44 log keys end to end (issue 41 §1, §2): a new data directory makes keys/mldsa44.key and
// every checkpoint carries its 0x06 line; the key is in the published keys (every export format),
// receipts and bundles; verify says which post-quantum signature counted, `--require-pq mldsa65`
// demands the stronger one; a data directory whose log has no ML-DSA-44 key never gets a file
// beside it, and gains the key through `vouch keys rotate` (a signed key entry).
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/http/node-server.js';
import { parseNote } from '../../src/log/index.js';
import { initDataDir, openDataDir } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { post } from '../http/_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-44-'));
const decide = (url: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });
const file = (name: string, content: string | object) => {
  const p = join(root, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};
async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}
/** The lengths of a note's signature lines, after the key id: 3309 ML-DSA-65, 64 Ed25519, 8 + 2420 ML-DSA-44. */
const lineLengths = (note: string) => parseNote(note).signatures.map((s) => s.signature.length);

describe('a new data directory', () => {
  const data = join(root, 'new');
  let receipt: any;
  beforeAll(async () => {
    expect((await cli('init', '--data', data)).code).toBe(0);
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    await decide(s.url);
    receipt = (await decide(s.url)).json.receipt;
    await s.close();
  }, 120_000);

  it('has keys/mldsa44.key (0600) and signs every checkpoint with ML-DSA-65, Ed25519 and ML-DSA-44 under the origin', () => {
    expect(statSync(join(data, 'keys', 'mldsa44.key')).mode & 0o777).toBe(0o600);
    expect(lineLengths(receipt.checkpoint)).toEqual([3309, 64, 8 + 2420]);
    expect(new Set(parseNote(receipt.checkpoint).signatures.map((s) => s.name))).toEqual(new Set(['vouch.local/default']));
  });

  it('publishes the ML-DSA-44 key in every export format: JWKS (AKP ML-DSA-44), vkeys (type 0x06), keys.json', async () => {
    const jwks = JSON.parse((await cli('keys', 'export', '--format', 'jwks', '--data', data)).out);
    expect(jwks.keys.map((k: any) => k.alg ?? k.crv).sort()).toEqual(['Ed25519', 'ML-DSA-44', 'ML-DSA-65']);
    expect(jwks.keys.find((k: any) => k.alg === 'ML-DSA-44')).toMatchObject({ kty: 'AKP', vouch_logs: { 'vouch.local/default': { from: 0 } } });
    const note = (await cli('keys', 'export', '--format', 'note', '--data', data)).out;
    const types = note.split('\n').filter((l) => l.startsWith('vouch.local/default+')).map((l) => fromBase64(l.slice(l.indexOf('+', l.indexOf('+') + 1) + 1))[0]);
    expect(types.sort((a, b) => a - b)).toEqual([0x01, 0x06, 0xff]);
    const kj = JSON.parse((await cli('keys', 'export', '--format', 'keys-json', '--data', data)).out);
    expect(kj.jwks.keys.some((k: any) => k.alg === 'ML-DSA-44')).toBe(true);
    expect((await cli('keys', 'list', '--data', data)).out).toMatch(/ML-DSA-44/);
  });

  it('verify: VALID naming ML-DSA-65 when trusted; with only the Ed25519 and ML-DSA-44 vkeys, VALID by ML-DSA-44; --require-pq mldsa65 then INVALID', async () => {
    const rp = file('new-receipt.json', receipt);
    const all = file('new-jwks.json', (await cli('keys', 'export', '--data', data)).out);
    const full = await cli('verify', rp, '--key', all, '--json');
    expect(full.code).toBe(0);
    expect(JSON.parse(full.out)).toMatchObject({ ok: true, postQuantum: 'ML-DSA-65', requirePq: 'any' });
    const vkeys = (await cli('keys', 'export', '--format', 'note', '--data', data)).out.split('\n').filter((l) => /^vouch\.local\/default\+/.test(l));
    const weaker = file('new-44-ed.vkeys', vkeys.filter((l) => [0x01, 0x06].includes(fromBase64(l.slice(l.indexOf('+', l.indexOf('+') + 1) + 1))[0])).join('\n') + '\n');
    const r44 = await cli('verify', rp, '--key', weaker);
    expect(r44.code).toBe(0);
    expect(r44.out).toMatch(/VALID \(Ed25519 \+ ML-DSA-44; post-quantum: ML-DSA-44 \(ML-DSA-65 or ML-DSA-44 required\)/);
    const strict = await cli('verify', rp, '--key', weaker, '--require-pq', 'mldsa65', '--json');
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.out)).toMatchObject({ ok: false, postQuantum: null, requirePq: 'ML-DSA-65' });
    expect(JSON.parse(strict.out).checks.find((c: any) => c.name === 'checkpoint-signature').detail).toMatch(/no valid ML-DSA-65 signature.*--require-pq mldsa65 demands ML-DSA-65/);
    expect((await cli('verify', rp, '--key', all, '--require-pq', 'mldsa44')).code).toBe(2);
  });

  it('bundles carry the key: verify BUNDLE is clean and names the post-quantum signature', async () => {
    const out = join(root, 'new-bundle');
    expect((await cli('export', '-o', out, '--data', data)).code).toBe(0);
    const r = await cli('verify', out, '--trust-bundle-keys');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ML-DSA-44 [0-9a-f]{8}, bundle key\); post-quantum: ML-DSA-65/);
  });
});

describe('a data directory whose log was made without an ML-DSA-44 key', () => {
  const data = join(root, 'old');
  let before: any;
  let after: any;
  let rotation: { code: number; out: string };
  beforeAll(async () => {
    initDataDir(data, { mldsa44: false }); // as every data directory before issue 41
    const dd = await openDataDir(data, { thread: false });
    dd.log('default'); // the log exists before the service first starts (which runs initDataDir)
    await dd.close();
    const s1 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    before = (await decide(s1.url)).json.receipt;
    await s1.close();
    initDataDir(data); // a later start (vouch serve, gateway): keys are never made beside a log
    rotation = await cli('keys', 'rotate', '--data', data, '--json');
    const s2 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    after = (await decide(s2.url)).json.receipt;
    await s2.close();
  }, 120_000);

  it('gets no key file beside its log; its checkpoints carry ML-DSA-65 and Ed25519 only', () => {
    expect(lineLengths(before.checkpoint)).toEqual([3309, 64]);
    expect(rotation.code).toBe(0);
  });

  it('gains the ML-DSA-44 key through vouch keys rotate: a signed key entry names it, and later checkpoints carry its line', async () => {
    expect(JSON.parse(rotation.out).keys.map((k: any) => k.alg)).toEqual(['ML-DSA-65', 'Ed25519', 'ML-DSA-44']);
    expect(existsSync(join(data, 'keys', 'mldsa44.key'))).toBe(true);
    expect(lineLengths(after.checkpoint)).toEqual([3309, 64, 8 + 2420]);
    const keys = file('old-jwks.json', (await cli('keys', 'export', '--data', data)).out);
    for (const r of [before, after]) {
      const v = await cli('verify', file(`old-${Math.random()}.json`, r), '--key', keys, '--json');
      expect(v.code, v.out).toBe(0);
    }
    expect(JSON.parse((await cli('log', 'verify', '--data', data, '--json')).out)).toMatchObject({ ok: true });
  });
});

describe('receipts and bundles written before ML-DSA-44 log signatures (fixtures/legacy-65-ed25519)', () => {
  const fx = (name: string) => new URL(`../../fixtures/legacy-65-ed25519/${name}`, import.meta.url).pathname;
  it('still verify: the ML-DSA-65 line meets the requirement, also under --require-pq mldsa65', async () => {
    for (const key of ['vkeys.txt', 'jwks.json']) {
      const r = await cli('verify', fx('receipt.json'), '--key', fx(key), '--json');
      expect(r.code, r.out).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ ok: true, postQuantum: 'ML-DSA-65' });
      expect((await cli('verify', fx('receipt.json'), '--key', fx(key), '--require-pq', 'mldsa65')).code).toBe(0);
    }
    const b = await cli('verify', fx('bundle.tar.gz'), '--key', fx('vkeys.txt'), '--json');
    expect(b.code, b.out).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ ok: true, verdict: 'clean', postQuantum: 'ML-DSA-65' });
  });
});
