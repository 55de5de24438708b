// Issue 15 item 2, the unsigned tail: entries committed after the newest checkpoint are signed at
// start-up (a crash's durable answers must end up signed), so an attacker with write access to the
// database file but no key appends a made-up allow after the newest checkpoint, or drops the newer
// checkpoints and rewrites an entry that is then "unsigned", with every link, leaf and node right.
// The service must refuse to sign either (no commit tag under its key: log/commit-tag.ts), say it
// is not ready, issue no receipt for the forged entry, and `vouch log verify` must report it.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/http/node-server.js';
import { revokeEntryBody } from '../../src/log/index.js';
import { loadKeys, logPath } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';
import { appendForged, countCheckpoints, forgeEntry, openAsAttacker } from './_file-attacker.js';

const TENANT = 'default';
let original: string;

const decide = (url: string, name: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: { text: 'hi' } } });

beforeAll(async () => {
  original = join(mkdtempSync(join(tmpdir(), 'vouch-tail-')), 'data');
  const s = await startServer({ data: original, port: 0, idleCheckpointMs: 0 });
  await decide(s.url, 'echo'); // entry 0 is the policy entry, 1 this
  expect((await decide(s.url, 'dangerous_tool')).json.effect).toBe('deny'); // entry 2
  await decide(s.url, 'echo'); // 3
  await decide(s.url, 'echo'); // 4
  await s.close(); // signs a checkpoint over all 5: no tail
}, 180_000);

function copy(): { data: string; db: string } {
  const data = join(mkdtempSync(join(tmpdir(), 'vouch-tail-forged-')), 'data');
  cpSync(original, data, { recursive: true });
  return { data, db: logPath(data, TENANT) };
}

async function logVerify(data: string) {
  const c = captureIo();
  const code = await main(['log', 'verify', '--data', data, '--json'], c.io);
  return { code, report: JSON.parse(c.text()) };
}

/** /healthz once the log's open has been refused (the log thread checks it after the ready line). */
async function refusal(url: string) {
  let health = await get(`${url}/healthz`);
  for (let i = 0; i < 300 && health.json?.error?.code !== 'ERR_STORE_INCONSISTENT'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    health = await get(`${url}/healthz`);
  }
  return health;
}

async function expectRefused(data: string, db: string, forgedSeq: number, why: RegExp): Promise<void> {
  const checkpoints = countCheckpoints(db);
  const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  try {
    const health = await refusal(s.url);
    expect(health.status).toBe(503);
    expect(health.json.error).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(why) });
    const r = await decide(s.url, 'echo');
    expect(r.status).toBe(503);
    expect((await get(`${s.url}/v1/entries/${forgedSeq}`)).status).not.toBe(200); // no receipt for the forgery
  } finally {
    await s.close();
  }
  expect(countCheckpoints(db)).toBe(checkpoints); // nothing signed, not even at shutdown
  const v = await logVerify(data);
  expect(v.code).toBe(1);
  expect(v.report.logs[0].findings.map((f: { message: string }) => f.message).join('\n')).toMatch(why);
}

describe('the unsigned tail is signed only with this service\'s commit tag', () => {
  it('a made-up allow appended after the newest checkpoint (links, leaf and nodes right) is not signed', async () => {
    const { data, db } = copy();
    const seq = appendForged(db, (e) => {
      e.target = 'dangerous_tool';
      e.decision.effect = 'allow';
    });
    expect(seq).toBe(5);
    await expectRefused(data, db, 5, /commit tag names a tree of 5 entries, the store holds 6/);
  }, 60_000);

  it('newer checkpoints dropped and the deny at entry 2 rewritten to allow, relinked: not signed', async () => {
    const { data, db } = copy();
    const h = openAsAttacker(db);
    h.prepare('DELETE FROM checkpoints WHERE size > 2').run();
    h.close();
    forgeEntry(db, 2, (e) => (e.decision.effect = 'allow'));
    await expectRefused(data, db, 2, /commit tag does not match the stored tree/);
  }, 60_000);

  it('the same with the commit tag row deleted, or its size set to the forged tree\'s: not signed', async () => {
    for (const tamper of ['DELETE FROM commit_tag', 'UPDATE commit_tag SET size = 6']) {
      const { data, db } = copy();
      appendForged(db, (e) => (e.decision.effect = 'allow'));
      const h = openAsAttacker(db);
      h.exec(tamper);
      h.close();
      await expectRefused(data, db, 5, tamper.startsWith('DELETE') ? /carry no commit tag/ : /commit tag does not match the stored tree/);
    }
  }, 120_000);

  it('log verify of the untouched log is clean with no unsigned entries; a genuine tail shows its tag valid, and the service signs it', async () => {
    const clean = await logVerify(original);
    expect(clean.report.logs[0].findings).toEqual([]);
    expect(clean.code).toBe(0);
    expect(clean.report.logs[0].unsigned).toBeUndefined();
    // A genuine tail: the newest checkpoint dropped (what a crash before the signature leaves), tag intact.
    const { data, db } = copy();
    const h = openAsAttacker(db);
    h.prepare('DELETE FROM checkpoints WHERE size = (SELECT MAX(size) FROM checkpoints)').run();
    h.close();
    // A crash before the signature leaves no archive ahead of the database (it is written after the
    // checkpoint commits); the copy's archive holds the dropped checkpoint, so it goes too.
    rmSync(join(data, 'archive'), { recursive: true, force: true });
    const v = await logVerify(data);
    // Unsigned entries stay a finding of their own (the log is not signed to its end); the tag is valid.
    expect(v.report.logs[0].findings).toEqual([expect.objectContaining({ kind: 'size', message: expect.stringMatching(/the last checkpoint signs \d of 5 entries/) })]);
    expect(v.report.logs[0].unsigned).toMatchObject({ tag: 'valid' });
    const ro = new Database(db, { readonly: true });
    const tagSize = (ro.prepare('SELECT size FROM commit_tag').get() as { size: number }).size;
    ro.close();
    expect(tagSize).toBe(5);
    // ...and the service signs it at start.
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    try {
      expect((await decide(s.url, 'echo')).status).toBe(200);
    } finally {
      await s.close();
    }
    expect((await logVerify(data)).code).toBe(0);
  }, 60_000);

  it('a key entry forged into the tail (the current ML-DSA-65 key revoked after size 0) changes neither the published keys nor the refusal\'s reason', async () => {
    const { data, db } = copy();
    const mldsa = loadKeys(data).keys.find((k) => k.alg === 'ML-DSA-65')!;
    appendForged(db, (e) => {
      for (const k of Object.keys(e)) if (!['v', 'log', 'seq', 'prev'].includes(k)) delete e[k];
      Object.assign(e, revokeEntryBody('2026-12-01T00:00:00Z', { alg: 'ML-DSA-65', publicKey: mldsa.publicKey }, 0));
    });
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    try {
      const health = await refusal(s.url);
      expect(health.json.error).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/commit tag names a tree of 5 entries, the store holds 6/) });
      const jwks = await get(`${s.url}/.well-known/vouch/keys`);
      expect(jwks.status).toBe(200);
      expect(JSON.stringify(jwks.json)).not.toMatch(/revoked/i);
    } finally {
      await s.close();
    }
  }, 60_000);
});
