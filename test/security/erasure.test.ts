// Issue 15 item 5, erasure erases: after `vouch payload erase` and DELETE /v1/payloads/:digest the
// erased value is in none of the database, -wal and -shm files (the attacker here is anyone who
// reads the files later: a backup, a disk image), while proofs, receipts and replay behave as before.
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { decodeEntry } from '../../src/log/index.js';
import { logPath } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post, testServer } from '../http/_server.js';

type Server = Awaited<ReturnType<typeof testServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A value no redactor rewrites, so input and intent are the same stored payload. */
const secretValue = () => `erase-me-${randomBytes(12).toString('hex')}`;

/** Large enough to spill into overflow pages (freed, not just unlinked, on delete). */
const largeSecretValue = () => `erase-me-big-${randomBytes(12 * 1024).toString('hex')}`;

const VALUES: [string, () => string][] = [
  ['a small value', secretValue],
  ['a value in overflow pages', largeSecretValue],
];

/** Which of the database's three files hold any 48-byte piece of these bytes (every page's share of it is looked for). */
function filesHolding(db: string, value: string): string[] {
  const pieces: Buffer[] = [];
  for (let i = 0; i + 48 <= value.length; i += 1024) pieces.push(Buffer.from(value.slice(i, i + 48)));
  pieces.push(Buffer.from(value.slice(-48)));
  return [db, `${db}-wal`, `${db}-shm`].filter((f) => {
    if (!existsSync(f)) return false;
    const bytes = readFileSync(f);
    return pieces.some((p) => bytes.includes(p));
  });
}

async function decideWith(s: Server, value: string): Promise<{ seq: number; digests: string[] }> {
  const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: value } } });
  expect(r.status).toBe(200);
  const entry = decodeEntry(fromBase64(r.json.receipt.entry)) as Record<string, any>;
  const digests = [entry.input.digest, ...(entry.intent ? [entry.intent.digest] : [])];
  return { seq: entry.seq, digests: [...new Set(digests)] };
}

async function vouch(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await main(argv, io.io);
  return { code, out: io.text(), err: io.errText() };
}

describe('erasure erases (issue 15 item 5)', () => {
  it.each(VALUES)('vouch payload erase (%s): gone from the database, WAL and SHM; receipts and replay as before', async (_what, make) => {
    server = await testServer();
    const data = join(server.dir, 'data');
    const db = logPath(data, 'default');
    const value = make();
    const { seq, digests } = await decideWith(server, value);
    await server.close();
    server = undefined;
    expect(filesHolding(db, value).length).toBeGreaterThan(0); // the test can see it before
    for (const d of digests) expect((await vouch('payload', 'erase', d, '--data', data, '--reason', 'test')).code).toBe(0);
    expect(filesHolding(db, value)).toEqual([]);
    // The log stays clean (the erasure is recorded), and replay names the erasure entry.
    const verify = await vouch('log', 'verify', '--data', data);
    expect(verify.out).toContain('log verify: clean');
    const replay = JSON.parse((await vouch('replay', '--data', data, '--json', '--from', String(seq), '--to', String(seq + 1))).out);
    expect(replay.results[0]).toMatchObject({ seq, status: 'unreplayable', reason: 'payload erased' });
    expect(replay.results[0].detail).toMatch(/erased by entry \d+/);
    expect(replay.findings).toEqual([]);
  });

  it.each(VALUES)('DELETE /v1/payloads/:digest on the running service (%s): gone from all three files before it answers', async (_what, make) => {
    server = await testServer();
    const db = logPath(join(server.dir, 'data'), 'default');
    const value = make();
    const { seq, digests } = await decideWith(server, value);
    // More decisions after it, so later WAL frames and pages exist too.
    for (let i = 0; i < 5; i++) await decideWith(server, `other-${i}`);
    expect(filesHolding(db, value).length).toBeGreaterThan(0);
    for (const d of digests) {
      const r = await fetch(`${server.url}/v1/payloads/${d}?reason=test`, { method: 'DELETE' });
      expect(r.status).toBe(200);
    }
    expect(filesHolding(db, value)).toEqual([]); // while the service runs, WAL included
    // The service keeps deciding and appending after the checkpoint.
    await decideWith(server, 'after-erasure');
    expect(filesHolding(db, value)).toEqual([]);
    // Receipts for the decision still come with proofs; the payload is gone; replay says erased.
    const e = await get(`${server.url}/v1/entries/${seq}`);
    expect(e.status).toBe(200);
    expect(e.json.receipt).toBeDefined();
    expect((await get(`${server.url}/v1/payloads/${digests[0]}`)).status).toBe(404);
    const rep = await post(`${server.url}/v1/replay`, { from: seq, to: seq + 1 });
    expect(rep.json.results[0]).toMatchObject({ seq, status: 'unreplayable', reason: 'payload erased' });
  });
});
