// Issue 15 item 2: an attacker with write access to the database file but no key rewrites entry 2
// (deny -> allow), relinks the chain, rebuilds the nodes and sets the plain root column (or drops
// the old checkpoints). On restart the service must refuse to sign, say it is not ready, fail every
// append closed, and `vouch log verify` must report it. Before the fix, it signed the forged tree.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/http/node-server.js';
import { Appender } from '../../src/log/index.js';
import { loadKeys, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';
import { countCheckpoints, forgeEntry } from './_file-attacker.js';

const TENANT = 'default';
let original: string;

const decide = (url: string, name: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: { text: 'hi' } } });

beforeAll(async () => {
  original = join(mkdtempSync(join(tmpdir(), 'vouch-forgery-')), 'data');
  const s = await startServer({ data: original, port: 0, idleCheckpointMs: 0 });
  await decide(s.url, 'echo'); // entry 0 is the policy entry, 1 this
  const denied = await decide(s.url, 'dangerous_tool'); // entry 2
  await decide(s.url, 'echo'); // entry 3
  await decide(s.url, 'echo'); // entry 4
  await s.close();
  expect(denied.json.effect).toBe('deny');
  const entry = JSON.parse(utf8.decode(fromBase64(denied.json.receipt.entry)));
  expect(entry).toMatchObject({ seq: 2, decision: { effect: 'deny' } });
}, 180_000);

function attackedCopy(opts: { dropOldCheckpoints?: boolean } = {}): { data: string; db: string; checkpoints: number } {
  const data = join(mkdtempSync(join(tmpdir(), 'vouch-forged-')), 'data');
  cpSync(original, data, { recursive: true });
  const db = logPath(data, TENANT);
  forgeEntry(db, 2, (e) => (e.decision.effect = 'allow'), opts);
  return { data, db, checkpoints: countCheckpoints(db) };
}

async function logVerify(data: string) {
  const c = captureIo();
  const code = await main(['log', 'verify', '--data', data, '--json'], c.io);
  return { code, report: JSON.parse(c.text()) };
}

describe('start-up trusts only what is signed', () => {
  for (const dropOldCheckpoints of [false, true]) {
    it(`the service refuses to sign the forged tree${dropOldCheckpoints ? ' (old checkpoints dropped)' : ''}: not ready, appends fail closed, nothing signed`, async () => {
      const { data, db, checkpoints } = attackedCopy({ dropOldCheckpoints });
      const lines: Record<string, unknown>[] = [];
      const s = await startServer({ data, port: 0, idleCheckpointMs: 0, logLine: (l) => lines.push(l) });
      try {
        let health = await get(`${s.url}/healthz`);
        for (let i = 0; i < 300 && health.json?.error?.code !== 'ERR_STORE_INCONSISTENT'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          health = await get(`${s.url}/healthz`);
        }
        expect(health.status).toBe(503);
        expect(health.json.ok).toBe(false);
        expect(health.json.error.code).toBe('ERR_STORE_INCONSISTENT');
        expect(health.json.error.message).toMatch(/does not reproduce the root of the newest signed checkpoint|root column disagrees with its signed note/);
        const r = await decide(s.url, 'echo');
        expect(r.status).toBe(503);
        expect(r.json.error.code).toBe('ERR_STORE_INCONSISTENT');
        const forged = await get(`${s.url}/v1/entries/2`);
        expect(forged.status).not.toBe(200); // no receipt for the forged allow
        expect(lines).toContainEqual(expect.objectContaining({ msg: 'log refused: not signing', tenant: TENANT, code: 'ERR_STORE_INCONSISTENT' }));
      } finally {
        await s.close();
      }
      expect(countCheckpoints(db)).toBe(checkpoints); // nothing was signed over the forged tree
      const v = await logVerify(data);
      expect(v.code).not.toBe(0);
      expect(v.report.logs[0].findings.length).toBeGreaterThan(0);
      expect(v.report.logs[0].findings.map((f: { message: string }) => f.message).join('\n')).toMatch(/root/);
    }, 60_000);
  }

  it('Appender.open says why: the stored tree does not reproduce the signed root', async () => {
    const { data, db } = attackedCopy();
    const store = openSqliteStore(db);
    const { verifiers } = loadKeys(data, `vouch.local/${TENANT}`); // the log's keys, under its origin
    const d = await openDataDir(data); // the same keys the service signs with
    try {
      expect(() => Appender.open({ origin: `vouch.local/${TENANT}`, storage: store, signers: d.signers, verifiers })).toThrow(
        expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/^refusing to sign: the stored tree of 5 entries does not reproduce the root/) }),
      );
    } finally {
      store.close();
      await d.close();
    }
  });

  it('a log whose checkpoints were all dropped is refused too', async () => {
    const { data, db } = attackedCopy();
    const { openAsAttacker } = await import('./_file-attacker.js');
    const h = openAsAttacker(db);
    h.exec('DELETE FROM checkpoints');
    h.close();
    await expect(openDataDir(data).then(async (d) => {
      try {
        d.log(TENANT);
      } finally {
        await d.close();
      }
    })).rejects.toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/no signed checkpoint/) });
  });

  it('the untouched log opens, and its newest note must verify with every key of the log (strict)', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-strict-')), 'data');
    cpSync(original, data, { recursive: true });
    const db = logPath(data, TENANT);
    const { openAsAttacker } = await import('./_file-attacker.js');
    const h = openAsAttacker(db);
    const last = h.prepare('SELECT size, note FROM checkpoints ORDER BY size DESC LIMIT 1').get() as { size: number; note: string };
    // Drop the ML-DSA-65 signature line: a well-formed note, signed by Ed25519 alone.
    const lines = last.note.split('\n');
    const sigStart = lines.indexOf('') + 1;
    const stripped = [...lines.slice(0, sigStart), ...lines.slice(sigStart + 1)].join('\n');
    h.prepare('UPDATE checkpoints SET note = ? WHERE size = ?').run(stripped, last.size);
    h.close();
    const d = await openDataDir(data);
    try {
      expect(() => d.log(TENANT)).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/newest stored checkpoint note .* does not verify/) }));
    } finally {
      await d.close();
    }
  });
});
