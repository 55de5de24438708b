// A real server on a pruned log (issue 40): entries below 512 live only in the tile archive. What
// the console and the CLI read of a pruned entry (its receipt, an inclusion proof, an export
// holding it, the console's views) verifies offline, and new decisions still append. Then the
// file-level attacker edits or removes an archive tile after pruning: each of those reads fails
// closed with a coded error, never another entry's bytes.
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, fromHex, utf8 } from '../../src/canonical/index.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { hashLeaf, openSignedCheckpoint, verifyInclusion } from '../../src/log/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { runVouch } from '../helpers/cli.js';
import { get, post } from './_server.js';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
/** The pruned data directory each server runs on a copy of. */
let pruned: string;
/** Entry 300's bytes, read before pruning. */
let entry300: Uint8Array;
/** The tenant's archive under the data directory (`vouch log archive`'s default). */
const tiles = (data: string) => join(data, 'archive', 'default', 'tile');

beforeAll(async () => {
  // 600 real decisions through a real server (the seed example's chain), so that `vouch verify` checks whole entries.
  pruned = join(tempDir('vouch-http-pruned-'), 'data');
  const s = await startServer({ data: pruned, port: 0 });
  try {
    for (let i = 0; i < 600; i += 50) {
      const rs = await Promise.all(Array.from({ length: 50 }, (_, k) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `call ${i + k}` } }, wait: 'durable' })));
      expect(rs.map((r) => r.status)).toEqual(rs.map(() => 200));
    }
  } finally {
    await s.close();
  }
  expect((await runVouch('log', 'archive', '--data', pruned)).code).toBe(0);
  const before = await runVouch('receipt', '300', '--data', pruned, '--json');
  entry300 = fromBase64(before.json.entry);
  expect(JSON.parse(utf8.decode(entry300))).toMatchObject({ seq: 300, type: 'decision' });
  expect((await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default', '--json')).json).toMatchObject({ below: 512 });
}, 180_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A server on a fresh copy of the pruned directory, after `change` (the attacker's edit) to the copy. */
async function serveCopy(change?: (data: string) => void): Promise<RunningServer & { data: string }> {
  const data = join(tempDir('vouch-http-pruned-copy-'), 'data');
  cpSync(pruned, data, { recursive: true });
  change?.(data);
  return Object.assign(await startServer({ data, port: 0 }), { data });
}

async function saveExport(url: string, file: string): Promise<Response> {
  const res = await fetch(url);
  if (res.status === 200) await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
  return res;
}

describe('a server on a pruned log', () => {
  let s: RunningServer & { data: string };
  beforeAll(async () => {
    s = await serveCopy();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });
  const trust = async () => parseTrust(JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));

  it('GET /v1/entries/300 (the console\'s entry view, `vouch receipt`): the entry as it was, a receipt that verifies offline', async () => {
    const r = await get(`${s.url}/v1/entries/300`);
    expect(r.status).toBe(200);
    expect(r.json.seq).toBe(300);
    expect(fromBase64(r.json.receipt.entry)).toEqual(entry300);
    expect(r.json.entry).toEqual(JSON.parse(utf8.decode(entry300)));
    const report = verifyReceipt(r.json.receipt, { verifiers: verifiersFor(await trust(), r.json.receipt.checkpoint) });
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('GET /v1/proofs/inclusion?seq=300: a proof that verifies offline against the signed checkpoint', async () => {
    const r = await get(`${s.url}/v1/proofs/inclusion?seq=300`);
    expect(r.status).toBe(200);
    const { checkpoint } = openSignedCheckpoint(r.json.checkpoint, verifiersFor(await trust(), r.json.checkpoint));
    expect(checkpoint.size).toBe(r.json.size);
    expect(verifyInclusion(300, r.json.size, hashLeaf(entry300), r.json.proof.map(fromHex), checkpoint.root)).toBe(true);
  });

  it('the console\'s list from a pruned seq: the row of entry 300', async () => {
    const r = await get(`${s.url}/v1/entries?type=decision&from=300&limit=1`);
    expect(r.status).toBe(200);
    expect(r.json.rows).toHaveLength(1);
    expect(r.json.rows[0]).toMatchObject({ seq: 300, type: 'decision', effect: 'allow' });
  });

  it('GET /v1/export of a range across the watermark: `vouch verify` accepts the bundle', async () => {
    const dir = tempDir('vouch-http-pruned-export-');
    const file = join(dir, 'b.tar.gz');
    const res = await saveExport(`${s.url}/v1/export?from=200&to=580`, file);
    expect(res.status).toBe(200);
    writeFileSync(join(dir, 'keys.json'), JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
    const v = await runVouch('verify', file, '--key', join(dir, 'keys.json'), '--json');
    expect(v.json?.findings ?? v.out).toEqual([]);
    expect(v.code).toBe(0);
    expect(v.json).toMatchObject({ ok: true });
  });

  it('new decisions append after the pruned history and their receipts verify', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });
    expect(r.status).toBe(200);
    expect(r.json.seq).toBeGreaterThanOrEqual(600);
    expect(verifyReceipt(r.json.receipt, { verifiers: verifiersFor(await trust(), r.json.receipt.checkpoint) }).ok).toBe(true);
    const back = await get(`${s.url}/v1/entries/${r.json.seq}`);
    expect(back.status).toBe(200);
  });
});

/** What each reader of a pruned entry answers on a server whose archive was changed: status and error code, and the body. */
async function readsOf(url: string): Promise<Record<string, { status: number; code?: string; body: string }>> {
  const out: Record<string, { status: number; code?: string; body: string }> = {};
  const answer = async (name: string, res: Response) => {
    const body = await res.text().catch((e) => `stream failed: ${(e as Error).message}`);
    let code: string | undefined;
    try {
      code = JSON.parse(body).error?.code;
    } catch {
      // not JSON: a tarball or a truncated stream
    }
    out[name] = { status: res.status, code, body };
  };
  await answer('entry', await fetch(`${url}/v1/entries/100`));
  await answer('cose', await fetch(`${url}/v1/entries/100/receipt.cose`));
  await answer('proof', await fetch(`${url}/v1/proofs/inclusion?seq=100`));
  await answer('export', await fetch(`${url}/v1/export?from=50&to=580`));
  await answer('console', await fetch(`${url}/v1/entries?type=decision&from=100&limit=1`));
  return out;
}

describe('the file-level attacker changes the archive after pruning', () => {
  // Tile 0 holds entries 0..255: entry 100 and the nodes of its proof. (The open check reads tile 1,
  // the last pruned one: a change there stops the log opening at all, test/store/archive-prune.test.ts.)
  const bundle = (data: string) => join(tiles(data), 'entries', '000');
  const hashTile = (data: string) => join(tiles(data), '0', '000');
  const flip = (path: string, at: (len: number) => number) => {
    const b = readFileSync(path);
    b[at(b.length)] ^= 0x01;
    writeFileSync(path, b);
  };
  const attacks: [string, (data: string) => void][] = [
    ['the entry bundle removed', (d) => unlinkSync(bundle(d))],
    ['a byte of the entry bundle changed', (d) => flip(bundle(d), (n) => n >> 1)],
    ['the hash tile removed', (d) => unlinkSync(hashTile(d))],
    ['a byte of the hash tile changed', (d) => flip(hashTile(d), () => 44 * 32 + 5)],
  ];
  for (const [what, change] of attacks) {
    it(`${what}: the server refuses to start, or every read of a pruned entry fails with ERR_ARCHIVE_*`, async () => {
      let s: (RunningServer & { data: string }) | undefined;
      try {
        s = await serveCopy(change);
      } catch (e) {
        // The open check read the changed tile: no server, a coded refusal naming the archive.
        expect((e as { code?: string }).code).toMatch(/^ERR_ARCHIVE_/);
        return;
      }
      try {
        const reads = await readsOf(s.url);
        for (const [name, r] of Object.entries(reads)) {
          expect(r.body, name).not.toMatch(/call \d/);
          expect({ name, status: r.status, code: r.code }).toEqual({ name, status: expect.any(Number), code: expect.stringMatching(/^ERR_ARCHIVE_/) });
          expect(r.status, name).toBeGreaterThanOrEqual(500);
        }
      } finally {
        await s.close();
      }
    }, 60_000);
  }
});
