// What a `vouch witness` process tells its operator per request (issue 37): one short info line per
// cosignature (origin, size, old size), a refusal at warn with its status and why, and nothing per
// request at --log-level warn but the refusals. A real witness process on 127.0.0.1, real requests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatVkey, type NoteVerifier } from '../../src/log/index.js';
import { formatAddCheckpoint } from '../../src/witness/index.js';
import { testKeys } from '../helpers/keys.js';
import { startWitness } from './_procs.js';
import { MemTree } from './_tree.js';

const ORIGIN = 'vouch.local/acme';
const log = testKeys(ORIGIN, 31);
const forger = testKeys(ORIGIN, 41);
const vkeyOf = (v: NoteVerifier) => formatVkey(v.name, v.alg, v.publicKey);

async function witnessProcess(extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-w-log-'));
  const file = join(dir, 'log.vkeys');
  writeFileSync(file, log.verifiers.map(vkeyOf).join('\n') + '\n');
  return startWitness(join(dir, 'w'), ['--name', 'w.example/log', '--log', `${ORIGIN}=${file}`, ...extra]);
}

const add = async (url: string, t: MemTree, old: number, signed = t) =>
  fetch(`${url}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint({ oldSize: old, proof: t.proof(old), checkpoint: await signed.checkpoint() }) }).then((r) => r.status);
const lines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
const settle = () => new Promise((r) => setTimeout(r, 200));

describe('vouch witness logs each request it answers', () => {
  it('one short info line per cosignature; a refusal at warn with its status', async () => {
    const w = await witnessProcess();
    try {
      const t = new MemTree(ORIGIN, log.signers).add('a', 'b');
      expect(await add(w.url, t, 0)).toBe(200);
      t.add('c');
      expect(await add(w.url, t, 2)).toBe(200);
      // A forged checkpoint (keys the log does not hold) and a stale old size.
      const forged = new MemTree(ORIGIN, forger.signers);
      forged.leaves = [...t.leaves, t.leaves[0]];
      expect(await add(w.url, forged, 3)).toBe(403);
      expect(await add(w.url, t, 2)).toBe(409);
      await settle();
    } finally {
      await w.stop();
    }
    const got = lines(w.stderr());
    expect(got.filter((l) => l.msg === 'cosigned')).toEqual([
      { t: expect.any(String), level: 'info', msg: 'cosigned', origin: ORIGIN, size: 2, old: 0 },
      { t: expect.any(String), level: 'info', msg: 'cosigned', origin: ORIGIN, size: 3, old: 2 },
    ]);
    const refused = got.filter((l) => l.msg === 'refused');
    expect(refused).toEqual([
      { t: expect.any(String), level: 'warn', msg: 'refused', origin: ORIGIN, size: 4, old: 3, status: 403, why: expect.stringMatching(/ERR_VERIFY_NOTE/) },
      { t: expect.any(String), level: 'info', msg: 'refused', origin: ORIGIN, size: 3, old: 2, status: 409, why: 'the size this witness holds is 3' },
    ]);
    for (const l of w.stderr().split('\n')) expect(l.length).toBeLessThan(400);
  }, 60_000);

  it('--log-level warn: no line per cosignature; refusals still', async () => {
    const w = await witnessProcess(['--log-level', 'warn']);
    try {
      const t = new MemTree(ORIGIN, log.signers).add('a', 'b');
      expect(await add(w.url, t, 0)).toBe(200);
      const forged = new MemTree(ORIGIN, forger.signers).add('a', 'b', 'x');
      expect(await add(w.url, forged, 2)).toBe(403);
      await settle();
    } finally {
      await w.stop();
    }
    expect(lines(w.stderr()).map((l) => [l.msg, l.status])).toEqual([['refused', 403]]);
  }, 60_000);
});
