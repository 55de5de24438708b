// The file-level attacker against an archived, not yet pruned log: the sealed history is in two
// copies, the tile archive and the database rows. `vouch log verify` and the background audit read
// it from the archive; the service serves it from the rows. A row rewritten under a genuine archive
// must be a finding too, or the copy that is served is the one nobody checks.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/node-server.js';
import { decodeEntryBundle, encodeEntryBundle, hashLeaf } from '../../src/log/index.js';
import { logPath } from '../../src/store/node.js';
import { get } from '../http/_server.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog } from '../store/_archive-log.js';
import { flipEntryByte, isCompact, openAsAttacker, rowBytes, writeRow } from './_file-attacker.js';

const temps: string[] = [];
let original: string;
const copy = (): string => {
  const root = mkdtempSync(join(tmpdir(), 'vouch-row-rewrite-'));
  temps.push(root);
  cpSync(original, join(root, 'data'), { recursive: true });
  return join(root, 'data');
};

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'vouch-row-rewrite-'));
  temps.push(root);
  original = await makeLog(600, 'agent', join(root, 'data'));
  expect((await runVouch('log', 'archive', '--data', original)).code).toBe(0);
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** Serve `data` with the background audit at once: it must stop signing (/metrics), and /healthz answer 503 naming `entry`. */
async function expectAuditStops(data: string, entry: string): Promise<void> {
  const s = await startServer({ data, port: 0, idleCheckpointMs: 0, auditPage: 64, auditDelayMs: 0, archiveDelayMs: 60_000 });
  try {
    const failed = async () => /^vouch_audit_failed\{tenant="default"\} 1$/m.test((await get(`${s.url}/metrics`)).json as string);
    for (const end = Date.now() + 45_000; !(await failed()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
    const h = await get(`${s.url}/healthz`);
    expect(h.status).toBe(503);
    expect(JSON.stringify(h.json.error)).toContain(entry);
  } finally {
    await s.close();
  }
}

describe('a database row rewritten under a genuine archive', () => {
  it('a flipped byte in a sealed entry row (leaf left alone): vouch log verify names the row', async () => {
    const data = copy();
    flipEntryByte(logPath(data, 'default'), 5, 40);
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toContain('entry 5');
  });

  it('a row rewritten with its own leaf hash and level-0 node (the archive left genuine): verify names the row', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    const bytes = Buffer.from(rowBytes(db, 300));
    const forged = Buffer.from(bytes.toString('utf8').replace('agent-300', 'agent-999'));
    writeRow(db, 300, forged, hashLeaf(forged)); // as the writer would store it (compact rows recompressed)
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 0 AND idx = 300').run(hashLeaf(forged));
    db.close();
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toMatch(/entry 300: the database row's bytes, and the archive's tile\/entries\/001 differ/);
  });

  // A compressed row equal to its archived copy, bytes and leaf, is not hashed on its own (the copy is,
  // by every reader of the archive view): so the same forged bytes in both, under the genuine leaf,
  // must still be named, on one thread and on two.
  const forgeBothCopies = (): string => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    const bytes = Buffer.from(rowBytes(db, 300));
    const leaf = db.prepare('SELECT leaf FROM entries WHERE seq = 300').pluck().get() as Buffer;
    const forged = Buffer.from(bytes.toString('utf8').replace('agent-300', 'agent-999'));
    writeRow(db, 300, forged, leaf);
    db.close();
    expect(isCompact(logPath(data, 'default'), 300)).toBe(true); // the path that skips the row's own hash
    const file = join(data, 'archive', 'default', 'tile', 'entries', '001');
    const bundle = decodeEntryBundle(readFileSync(file));
    bundle[300 - 256] = forged;
    writeFileSync(file, encodeEntryBundle(bundle.map((b, i) => ({ seq: 256 + i, bytes: b })), 256, 256));
    return data;
  };
  for (const threads of ['1', '2']) {
    it(`the same forged bytes in the row and the archive's bundle, under the genuine leaf: verify names the entry (--threads ${threads})`, async () => {
      const data = forgeBothCopies();
      const v = await runVouch('log', 'verify', '--data', data, '--threads', threads, '--json');
      expect(v.code).toBe(1);
      expect(v.json.logs[0].findings).toContainEqual(expect.objectContaining({ kind: 'leaf', seq: 300, message: expect.stringContaining('entry 300: stored leaf hash does not match the entry bytes') }));
    });
  }

  it('the same forged bytes in the row and the archive\'s bundle: the background audit stops signing', async () => {
    await expectAuditStops(forgeBothCopies(), 'entry 300');
  }, 90_000);

  it('a level-0 node changed in the database (the sibling every proof of entry 5 carries): verify names the node', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 0 AND idx = 4').run(Buffer.alloc(32, 7));
    db.close();
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toMatch(/node 0\/4: the database's copy and the archive's tile\/0\/000 differ/);
  });

  // Nodes are compared in the database where it can (store nodesUnlike: nothing read back when they
  // agree): a changed or missing node at any level, alone or among many, is still named.
  it('nodes deleted or changed at levels 0, 3 and 8 (the archive left genuine): verify names each (in the archive findings or the rebuild), on one thread and on two', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    db.prepare('DELETE FROM nodes WHERE level = 0 AND idx = 260').run();
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 3 AND idx = 40').run(Buffer.alloc(32, 9));
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 8 AND idx = 1').run(Buffer.alloc(32, 8));
    db.close();
    for (const threads of ['1', '2']) {
      const v = await runVouch('log', 'verify', '--data', data, '--threads', threads, '--json');
      expect(v.code).toBe(1);
      const said = JSON.stringify(v.json.logs[0].findings);
      expect(said).toMatch(/node 0\/260: the database's copy is missing beside the archive's tile\/0\/001/); // an archived level: compared with the tile
      expect(said).toContain('tree node 3/40 (completed by entry 327) is wrong'); // levels the archive has no tile of: the rebuild
      expect(said).toContain('tree node 8/1 (completed by entry 511) is wrong'); // a partial tile: the rebuild
    }
  });

  // nodesUnlike counts the rows in [lo, end) and names those that differ by idx: a row whose idx is
  // no integer (260.5: an INTEGER column keeps a REAL it cannot convert, beside the primary key's
  // integers) is counted in place of a deleted node, and its own difference is never looked up.
  it('a deleted archived node with a non-integer idx put in its place (the count kept): verify still names the missing node', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    db.prepare('DELETE FROM nodes WHERE level = 0 AND idx = 260').run();
    db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (0, 260.5, ?)').run(Buffer.alloc(32, 5));
    db.close();
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toMatch(/node 0\/260: the database's copy is missing beside the archive's tile\/0\/001/);
  });

  // With the schema changed (the primary key dropped), a second copy of a genuine node keeps the count instead.
  it('a deleted archived node, the count kept by a duplicate of another (primary key dropped): verify still names the missing node', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    db.exec('CREATE TABLE nodes_dup (level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL); INSERT INTO nodes_dup SELECT level, idx, hash FROM nodes; DROP TABLE nodes; ALTER TABLE nodes_dup RENAME TO nodes');
    db.exec('DELETE FROM nodes WHERE level = 0 AND idx = 260; INSERT INTO nodes SELECT level, idx, hash FROM nodes WHERE level = 0 AND idx = 300');
    db.close();
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toMatch(/node 0\/260: the database's copy is missing beside the archive's tile\/0\/001/);
  });

  it('a deleted sealed row (triggers dropped): verify names it', async () => {
    const data = copy();
    const db = openAsAttacker(logPath(data, 'default'));
    db.prepare('DELETE FROM entries WHERE seq = 7').run();
    db.close();
    const v = await runVouch('log', 'verify', '--data', data, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toContain('entry 7: the database holds no row');
  });

  it('a flipped byte in a sealed row: the background audit stops signing, /healthz names the copy', async () => {
    const data = copy();
    flipEntryByte(logPath(data, 'default'), 5, 40);
    await expectAuditStops(data, 'entry 5');
  }, 90_000);
});
