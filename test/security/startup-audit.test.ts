// Issue 15 item 2, the part start-up does not read: one byte of an old entry flipped in the file
// (leaf hashes, nodes and checkpoints untouched) passes the O(log n) open check, so the service's
// background audit must find it, page by page, report it in /metrics and /healthz, and stop signing.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { logPath } from '../../src/store/node.js';
import { get, post } from '../http/_server.js';
import { countCheckpoints, flipEntryByte, openAsAttacker } from './_file-attacker.js';

let original: string;
const decide = (url: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });

beforeAll(async () => {
  original = join(mkdtempSync(join(tmpdir(), 'vouch-audit-')), 'data');
  const s = await startServer({ data: original, port: 0, idleCheckpointMs: 0 });
  for (let i = 0; i < 12; i++) await decide(s.url);
  await s.close();
}, 180_000);

function copy(): string {
  const data = join(mkdtempSync(join(tmpdir(), 'vouch-audit-copy-')), 'data');
  cpSync(original, data, { recursive: true });
  return data;
}

async function metric(s: RunningServer, name: string): Promise<number | undefined> {
  const text = (await get(`${s.url}/metrics`)).json as string;
  const m = new RegExp(`^${name}\\{tenant="default"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

async function until(what: () => Promise<boolean>, ms = 45_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('background audit of stored leaves', () => {
  it('a clean log: audited page by page to the end, ready, and decisions go on', async () => {
    const s = await startServer({ data: copy(), port: 0, idleCheckpointMs: 0, auditPage: 2 });
    try {
      await until(async () => (await metric(s, 'vouch_audit_complete')) === 1);
      expect(await metric(s, 'vouch_audit_entries_checked')).toBe(13);
      expect(await metric(s, 'vouch_audit_entries_total')).toBe(13);
      expect(await metric(s, 'vouch_audit_failed')).toBe(0);
      expect((await get(`${s.url}/healthz`)).status).toBe(200);
      expect((await decide(s.url)).status).toBe(200);
    } finally {
      await s.close();
    }
  }, 90_000);

  for (const [what, tamper] of [
    ['a flipped byte in an old entry', (db: string) => flipEntryByte(db, 3)],
    ['a flipped byte in an old stored leaf hash', (db: string) => {
      const h = openAsAttacker(db);
      const leaf = Buffer.from((h.prepare('SELECT leaf FROM entries WHERE seq = 4').get() as { leaf: Buffer }).leaf);
      leaf[0] ^= 0x80;
      h.prepare('UPDATE entries SET leaf = ? WHERE seq = 4').run(leaf);
      h.close();
    }],
    ['a rewritten leaf with its level-0 node, the higher nodes kept', (db: string) => {
      const h = openAsAttacker(db);
      const fake = Buffer.alloc(32, 7);
      h.prepare('UPDATE entries SET leaf = ? WHERE seq = 5').run(fake);
      h.prepare('UPDATE nodes SET hash = ? WHERE level = 0 AND idx = 5').run(fake);
      h.close();
    }],
  ] as const) {
    it(`${what}: found in the background, signing stops, /healthz and /metrics say so`, async () => {
      const data = copy();
      const db = logPath(data, 'default');
      tamper(db);
      const before = countCheckpoints(db);
      const lines: Record<string, unknown>[] = [];
      const s = await startServer({ data, port: 0, idleCheckpointMs: 0, auditPage: 2, logLine: (l) => lines.push(l) });
      try {
        await until(async () => (await metric(s, 'vouch_audit_failed')) === 1);
        expect(await metric(s, 'vouch_audit_complete')).toBe(0);
        const h = await get(`${s.url}/healthz`);
        expect(h.status).toBe(503);
        expect(h.json.error).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/background audit/) });
        const r = await decide(s.url);
        expect(r.status).toBe(503);
        expect(r.json.error.code).toBe('ERR_STORE_INCONSISTENT');
        expect(lines).toContainEqual(expect.objectContaining({ msg: 'log audit found a mismatch: signing stopped', code: 'ERR_STORE_INCONSISTENT' }));
      } finally {
        await s.close();
      }
      expect(countCheckpoints(db)).toBe(before); // fail closed: nothing signed after the mismatch, not even at shutdown
    }, 90_000);
  }
});
