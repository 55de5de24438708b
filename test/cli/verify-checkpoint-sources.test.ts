// Issue 37: `vouch verify RECEIPT --checkpoint FILE` with the two checkpoints the README named (now docs/verifying.md)
// (GET /v1/checkpoint, the shutdown checkpoint DATA/checkpoints/TENANT.note) on a genuine receipt
// of a real service: "truncation: not checked" with where to get the proof, never INVALID for a
// proof that is missing. What the inputs prove wrong still fails: another instance's tree of the
// same size (a second service holding the same key files), and a smaller checkpoint that a proof
// shows is not a prefix of the receipt's tree. Bundles (`vouch verify BUNDLE --checkpoint`) alike.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-verify-sources-'));
const data = join(root, 'data');
const other = join(root, 'other'); // another instance: the same key files, its own log
const file = (name: string, content: unknown) => {
  const p = join(root, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};
const decide = (url: string, text: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });
const sizeOf = (note: string) => Number(note.split('\n')[1]);

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

/** The note a service signed at `size` (every sequential decision gets its own checkpoint). */
async function noteAt(url: string, size: number): Promise<string> {
  const r = await get(`${url}/v1/proofs/inclusion?seq=0&size=${size}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.checkpoint;
}

let keys: string; // the JWKS the service publishes
let early: { path: string; size: number }; // a receipt of an early decision
let late: { path: string; size: number }; // a receipt of the newest decision
let current: string; // what GET /v1/checkpoint answered
let proof: string; // what GET /v1/proofs/consistency?from=<early size> answered
let shutdown: string; // DATA/checkpoints/default.note after a clean stop
let small: { ours: string; theirs: string; proof: unknown; size: number }; // checkpoints of size early.size from both instances, and our proof from there to late
let sameSizeFork: string; // the other instance's checkpoint at early.size
let entryAnswer: string; // what GET /v1/entries/SEQ answered for the early decision

beforeAll(async () => {
  const s1: RunningServer = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  try {
    await decide(s1.url, 'one');
    const e = (await decide(s1.url, 'two')).json.receipt;
    early = { path: file('early.json', e), size: sizeOf(e.checkpoint) };
    for (const t of ['three', 'four']) await decide(s1.url, t);
    const l = (await decide(s1.url, 'five')).json.receipt;
    late = { path: file('late.json', l), size: sizeOf(l.checkpoint) };
    keys = file('keys.json', (await get(`${s1.url}/.well-known/vouch/keys`)).json);
    entryAnswer = file('entry.json', (await get(`${s1.url}/v1/entries/${e.index}`)).json);
    current = file('current.json', (await get(`${s1.url}/v1/checkpoint`)).json);
    proof = file('proof.json', (await get(`${s1.url}/v1/proofs/consistency?from=${early.size}`)).json);
    const back = (await get(`${s1.url}/v1/proofs/consistency?from=${early.size}&to=${late.size}`)).json;
    small = { ours: await noteAt(s1.url, early.size), theirs: '', proof: back.proof, size: early.size };
  } finally {
    await s1.close();
  }
  shutdown = join(data, 'checkpoints', 'default.note');
  // A second service given this one's key files (copied by mistake, or by someone who holds them).
  mkdirSync(other, { recursive: true });
  cpSync(join(data, 'keys'), join(other, 'keys'), { recursive: true });
  const s2 = await startServer({ data: other, port: 0, idleCheckpointMs: 0 });
  try {
    for (const t of ['uno', 'dos', 'tres']) await decide(s2.url, t);
    sameSizeFork = await noteAt(s2.url, early.size);
    small.theirs = sameSizeFork;
  } finally {
    await s2.close();
  }
}, 180_000);
afterAll(() => undefined);

describe('vouch verify RECEIPT --checkpoint: the sources docs/verifying.md names', () => {
  it('GET /v1/checkpoint (a bigger tree, no proof): VALID, "truncation: not checked" naming the proof to fetch', async () => {
    expect(JSON.parse(readFileSync(current, 'utf8')).size).toBeGreaterThan(early.size);
    const r = await cli('verify', early.path, '--key', keys, '--checkpoint', current);
    expect(r.err).toBe('');
    expect(r.out).not.toMatch(/INVALID/);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`truncation: not checked: give a consistency proof from GET /v1/proofs/consistency?from=${early.size}`);
    expect(r.out).toMatch(/\u2713 newer-checkpoint/);
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65 \+ Ed25519 \+ ML-DSA-44; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)$/);
    const j = JSON.parse((await cli('verify', early.path, '--key', keys, '--checkpoint', current, '--json')).out);
    expect(j).toMatchObject({ ok: true, truncation: 'not checked', truncationNote: expect.stringContaining(`?from=${early.size}`) });
  });

  it('the shutdown checkpoint (DATA/checkpoints/default.note, a bare note): the same', async () => {
    const r = await cli('verify', early.path, '--key', keys, '--checkpoint', shutdown);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`truncation: not checked: give a consistency proof from GET /v1/proofs/consistency?from=${early.size}`);
  });

  it('with the proof the service hands out: truncation checked', async () => {
    const r = await cli('verify', early.path, '--key', keys, '--checkpoint', proof);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\u2713 consistency/);
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65 \+ Ed25519 \+ ML-DSA-44; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: checked\)$/);
  });

  it('a proof from another size is not the one needed: not checked, never INVALID', async () => {
    const r = await cli('verify', late.path, '--key', keys, '--checkpoint', proof);
    // The proof starts at the early size; the late receipt's tree is bigger than the proof's end or equal.
    expect(r.out).not.toMatch(/INVALID/);
    expect(r.code).toBe(0);
  });
});

describe('GET /v1/entries/SEQ as the receipt', () => {
  it('is read as the receipt it carries', async () => {
    const r = await cli('verify', entryAnswer, '--key', keys);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/\nVALID \(ML-DSA-65 \+ Ed25519 \+ ML-DSA-44; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)$/);
  });
});

describe('what the inputs prove wrong still fails', () => {
  it("another instance's checkpoint of the same size (a different tree, the same keys): INVALID, both notes printed", async () => {
    expect(sizeOf(sameSizeFork)).toBe(early.size);
    const r = await cli('verify', early.path, '--key', keys, '--checkpoint', file('fork.note', sameSizeFork));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\u2717 consistency +two different roots were signed for size/);
    expect(r.out).toMatch(/FORK EVIDENCE/);
    expect(r.out).toContain(sameSizeFork.trimEnd());
  });

  it('a smaller checkpoint with a proof that it is a prefix of the receipt\'s tree: INVALID when it is not; ours: consistent, not checked', async () => {
    const given = (checkpoint: string) => file(`small-${Math.random()}.json`, { from: small.size, to: late.size, proof: small.proof, checkpoint });
    const bad = await cli('verify', late.path, '--key', keys, '--checkpoint', given(small.theirs));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/\u2717 consistency +consistency proof from size \d+ to \d+ does not verify/);
    expect(bad.out).toMatch(/FORK EVIDENCE/);
    const good = await cli('verify', late.path, '--key', keys, '--checkpoint', given(small.ours));
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/\u2713 consistency +the receipt's tree of size \d+ extends the checkpoint given/);
    expect(good.out).toMatch(/truncation: not checked: give a consistency proof from GET \/v1\/proofs\/consistency\?from=\d+, with a checkpoint newer than the receipt's/);
    // The same smaller checkpoint bare: nothing to compare with, not checked.
    const bare = await cli('verify', late.path, '--key', keys, '--checkpoint', file('small.note', small.ours));
    expect(bare.code).toBe(0);
    expect(bare.out).toMatch(/truncation: not checked: .*is smaller than the receipt's/);
  });
});

describe('vouch verify BUNDLE --checkpoint', () => {
  it('a bare newer checkpoint: clean, "truncation: not checked" naming the proof; the proof: checked', async () => {
    const out = join(root, 'bundle');
    const ex = await cli('export', '--data', data, '-o', out, '--to', String(early.size));
    expect(ex.code, ex.err).toBe(0);
    const bare = await cli('verify', out, '--key', keys, '--checkpoint', current);
    expect(bare.out).not.toMatch(/finding/);
    expect(bare.code).toBe(0);
    expect(bare.out).toContain(`truncation: not checked: give a consistency proof from GET /v1/proofs/consistency?from=${early.size}`);
    const proven = await cli('verify', out, '--key', keys, '--checkpoint', proof);
    expect(proven.code).toBe(0);
    expect(proven.out).toMatch(/verify bundle: clean \(truncation: checked\)/);
  });
});
