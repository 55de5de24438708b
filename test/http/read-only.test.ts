// Issue 37: `vouch serve --read-only` attaches to a data directory a running service holds (its
// writer lock stays with it): receipts fetched there verify with `vouch keys export`'s keys, new
// entries appear as the writer signs them, every write route answers ERR_READ_ONLY, nothing in the
// data directory is written, and the file-level attacker who edits rows while it is attached (entry
// bytes, a forged checkpoint row, unsigned entries) is caught or ignored, never served as evidence.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { startReadOnlyServer, type ReadOnlyServer } from '../../src/http/node-read-only.js';
import { openDataDir } from '../../src/store/node.js';
import { lockPath } from '../../src/store/lock.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from './_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-read-only-'));
const data = join(root, 'data');
const decide = (url: string, text: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, text: c.text(), err: c.errText() };
}
async function verifyWith(receipt: unknown, keyFile: string) {
  const rf = join(root, `r-${Math.random()}.json`);
  writeFileSync(rf, JSON.stringify(receipt));
  return cli('verify', rf, '--key', keyFile);
}

let writer: RunningServer;
let reader: ReadOnlyServer;

beforeAll(async () => {
  writer = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  for (let i = 0; i < 3; i++) await decide(writer.url, `before ${i}`);
  reader = await startReadOnlyServer({ data, port: 0 });
}, 60_000);
afterAll(async () => {
  await reader?.close();
  await writer?.close();
});

describe('serve --read-only beside a running writer', () => {
  it('the writer keeps its lock; the lock error names --read-only', async () => {
    expect(readFileSync(lockPath(data, 'default'), 'utf8').trim()).toBe(String(process.pid));
    const dir = await openDataDir(data, { thread: false });
    let err: (Error & { code?: string }) | undefined;
    try {
      dir.log('default'); // a second writer: the lock is taken when the log is opened
    } catch (e) {
      err = e as Error & { code?: string };
    } finally {
      await dir.close();
    }
    expect(err?.code).toBe('ERR_STORE');
    expect(err?.message).toMatch(/vouch serve --read-only --data /);
  });

  it('serves receipts that verify with the keys `vouch keys export` prints, and sees new entries as the writer signs them', async () => {
    const keyFile = join(root, 'keys.jwks');
    expect((await cli('keys', 'export', '--data', data, '--out', keyFile)).code).toBe(0);
    const r0 = await get(`${reader.url}/v1/entries/1`);
    expect(r0.status).toBe(200);
    expect((await verifyWith(r0.json.receipt, keyFile)).code).toBe(0);
    const before = (await get(`${reader.url}/v1/checkpoint`)).json.size;
    const fresh = await decide(writer.url, 'after attach');
    const seq = fresh.json.seq;
    expect(seq).toBeGreaterThanOrEqual(before);
    const r1 = await get(`${reader.url}/v1/entries/${seq}`);
    expect(r1.status).toBe(200);
    const v = await verifyWith(r1.json.receipt, keyFile);
    expect(v.text).toMatch(/VALID/);
    expect(v.code).toBe(0);
    // The console's list and the keys the reader publishes.
    const rows = await get(`${reader.url}/v1/entries?order=newest&limit=5`);
    expect(rows.status).toBe(200);
    expect(rows.json.rows[0].seq).toBe(seq);
    expect((await get(`${reader.url}/.well-known/vouch/keys`)).json).toEqual((await get(`${writer.url}/.well-known/vouch/keys`)).json);
    expect((await get(`${reader.url}/audit/`)).status).not.toBe(500);
  });

  it.each([
    ['POST', '/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }],
    ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['POST', '/v1/policy', { config: 'interceptors: []' }],
    ['POST', '/v1/keys/rotate', {}],
    ['POST', '/v1/keys/revoke', { keyId: 'x', after: 1 }],
    ['POST', '/v1/executions', {}],
    ['DELETE', `/v1/payloads/sha256:${'0'.repeat(64)}`, undefined],
    ['PUT', '/v1/entries/1', {}],
  ])('%s %s is refused with ERR_READ_ONLY (409), nothing appended', async (method, path, body) => {
    const size = (await get(`${writer.url}/v1/checkpoint`)).json.size;
    const res = await fetch(`${reader.url}${path}`, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(res.status).toBe(409);
    const json = (await res.json()) as any;
    expect(path === '/mcp' ? json.error.data.code : json.error.code).toBe('ERR_READ_ONLY');
    expect((await get(`${writer.url}/v1/checkpoint`)).json.size).toBe(size);
  });

  it('replay (a read, POSTed for its body) is served', async () => {
    const r = await post(`${reader.url}/v1/replay`, {});
    expect(r.status).toBe(200);
    expect(r.json.mismatch).toBe(0);
  });

  it('unsigned entries a file writer adds after the newest checkpoint are not served', async () => {
    const cp = (await get(`${reader.url}/v1/checkpoint`)).json;
    const db = new Database(join(data, 'logs', 'default.db'));
    try {
      const last = db.prepare('SELECT * FROM entries ORDER BY seq DESC LIMIT 1').get() as Record<string, unknown>;
      const cols = Object.keys(last);
      db.prepare(`INSERT INTO entries (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`).run(...cols.map((c) => (c === 'seq' ? (last.seq as number) + 1 : last[c])));
    } finally {
      db.close();
    }
    expect((await get(`${reader.url}/v1/entries/${cp.size}`)).status).toBe(404);
    expect((await get(`${reader.url}/v1/checkpoint`)).json.size).toBe(cp.size);
  });
});

describe('the file-level attacker while attached', () => {
  it("an entry's bytes edited under the reader: that log stops being served (503), health says why", async () => {
    // A second writer and reader, so the edit does not spoil the tests above.
    const d2 = join(root, 'data2');
    const w2 = await startServer({ data: d2, port: 0, idleCheckpointMs: 0 });
    const r2 = await startReadOnlyServer({ data: d2, port: 0 });
    try {
      for (let i = 0; i < 3; i++) await decide(w2.url, `row ${i}`);
      expect((await get(`${r2.url}/v1/entries/2`)).status).toBe(200);
      const db = new Database(join(d2, 'logs', 'default.db'));
      try {
        db.exec('DROP TRIGGER entries_no_update');
        const row = db.prepare('SELECT bytes FROM entries WHERE seq = 2').get() as { bytes: Buffer };
        const edited = Buffer.from(row.bytes.toString('utf8').replace('row 1', 'row X').replace(/"effect":"allow"/, '"effect":"deny"'));
        db.prepare('UPDATE entries SET bytes = ? WHERE seq = 2').run(edited);
      } finally {
        db.close();
      }
      const r = await get(`${r2.url}/v1/entries/2`);
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('ERR_STORE_INCONSISTENT');
      expect(r.json.error.message).toMatch(/entry 2 changed after it was verified/);
      const h = await get(`${r2.url}/healthz`);
      expect(h.status).toBe(503);
      // Sticky: no other read of that log is served either.
      expect((await get(`${r2.url}/v1/entries/0`)).status).toBe(503);
    } finally {
      await r2.close();
      await w2.close();
    }
  });

  it('a forged checkpoint row (signed by another key) is refused, never served', async () => {
    const d3 = join(root, 'data3');
    const w3 = await startServer({ data: d3, port: 0, idleCheckpointMs: 0 });
    const other = await startServer({ data: join(root, 'other'), port: 0, idleCheckpointMs: 0 });
    const r3 = await startReadOnlyServer({ data: d3, port: 0 });
    try {
      await decide(w3.url, 'real');
      expect((await get(`${r3.url}/v1/checkpoint`)).status).toBe(200);
      for (let i = 0; i < 3; i++) await decide(other.url, `forged ${i}`);
      const forged = (await get(`${other.url}/v1/checkpoint`)).json;
      const db = new Database(join(d3, 'logs', 'default.db'));
      try {
        const cols = (db.prepare('PRAGMA table_info(checkpoints)').all() as { name: string }[]).map((c) => c.name);
        const last = db.prepare('SELECT * FROM checkpoints ORDER BY size DESC LIMIT 1').get() as Record<string, unknown>;
        const row = { ...last, size: forged.size + 10, note: forged.checkpoint.replace(/^vouch\.local\/default\n\d+\n/, `vouch.local/default\n${forged.size + 10}\n`) };
        db.prepare(`INSERT INTO checkpoints (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`).run(...cols.map((c) => (row as Record<string, unknown>)[c]));
      } finally {
        db.close();
      }
      const r = await get(`${r3.url}/v1/checkpoint`);
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('ERR_STORE_INCONSISTENT');
    } finally {
      await r3.close();
      await other.close();
      await w3.close();
    }
  });
});

describe('it never writes to the data directory', () => {
  const snapshot = (dir: string) => {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else out[p.slice(dir.length)] = `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${st.mtimeMs} ${st.mode}`;
      }
    };
    walk(dir);
    return out;
  };

  it('while the writer runs: no file changes that the writer did not make, no file created', async () => {
    const d4 = join(root, 'data4');
    // No tile archive: the writer's background archive writes would be files the snapshot did not see.
    const w4 = await startServer({ data: d4, port: 0, idleCheckpointMs: 0, archive: false });
    try {
      for (let i = 0; i < 3; i++) await decide(w4.url, `w ${i}`);
      const before = snapshot(d4);
      const r4 = await startReadOnlyServer({ data: d4, port: 0 });
      try {
        for (const p of ['/v1/checkpoint', '/v1/entries/1', '/v1/entries?limit=5', '/v1/tools/pins', '/.well-known/vouch/keys', '/v1/proofs/consistency?from=1', '/tlog/default/checkpoint']) expect((await get(`${r4.url}${p}`)).status, p).toBe(200);
        expect((await fetch(`${r4.url}/v1/export`)).status).toBe(200);
      } finally {
        await r4.close();
      }
      const after = snapshot(d4);
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      // The log's main file, the key files and the lock: byte for byte and mtime (the -shm holds readers' marks, the writer's file).
      for (const f of Object.keys(before).filter((f) => !f.endsWith('-shm'))) expect(after[f], f).toBe(before[f]);
    } finally {
      await w4.close();
    }
  });

  it('after the writer stopped: the log and key files unchanged byte for byte and by mtime', async () => {
    const d5 = join(root, 'data5');
    const w5 = await startServer({ data: d5, port: 0, idleCheckpointMs: 0 });
    for (let i = 0; i < 2; i++) await decide(w5.url, `s ${i}`);
    await w5.close();
    expect(existsSync(lockPath(d5, 'default'))).toBe(false);
    const before = snapshot(d5);
    const r5 = await startReadOnlyServer({ data: d5, port: 0 });
    try {
      expect((await get(`${r5.url}/v1/entries/1`)).status).toBe(200);
      expect((await get(`${r5.url}/v1/entries?limit=5`)).status).toBe(200);
    } finally {
      await r5.close();
    }
    const after = snapshot(d5);
    for (const f of Object.keys(before)) expect(after[f], f).toBe(before[f]);
    expect(existsSync(lockPath(d5, 'default'))).toBe(false);
  });
});

describe('vouch serve --read-only (CLI)', () => {
  it('refuses the writer-only options, naming the writer', async () => {
    const r = await cli('serve', '--read-only', '--data', data, '--config', 'x.yaml', '--port', '0');
    expect(r.code).toBe(2);
    expect(r.err + r.text).toMatch(/--config configures the writer/);
  });
  it('the ready line names the ML-DSA-65 key by its JWKS kid, as `vouch serve` does (text and --json)', async () => {
    // A data directory of its own (the tests above leave theirs with a broken tail on purpose).
    const fresh = join(root, 'ready-line');
    const exported = await cli('keys', 'export', '--data', (await cli('init', '--data', fresh), fresh));
    expect(exported.code, exported.err).toBe(0);
    const mldsa = JSON.parse(exported.text).keys.find((k: { alg?: string }) => k.alg === 'ML-DSA-65');
    for (const json of [false, true]) {
      const child = spawn(process.execPath, [fileURLToPath(new URL('../../bin/vouch.js', import.meta.url)), 'serve', '--read-only', '--data', fresh, '--port', '0', ...(json ? ['--json'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
      try {
        for (let i = 0; i < 600 && !out.includes('\n'); i++) await new Promise((r) => setTimeout(r, 50));
        const first = out.split('\n')[0];
        if (json) expect(JSON.parse(first)).toMatchObject({ msg: 'vouch ready', readOnly: true, keyId: mldsa.kid });
        else expect(first).toMatch(new RegExp(`^vouch ready on http://127\\.0\\.0\\.1:\\d+  key ${mldsa.kid} \\(JWKS kid\\)  \\(read-only: attached to `));
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }, 60_000);
  it('refuses a data directory that is not there (it creates nothing)', async () => {
    const missing = join(root, 'missing');
    const r = await cli('serve', '--read-only', '--data', missing, '--port', '0');
    expect(r.code).toBe(3);
    expect(existsSync(missing)).toBe(false);
  });
});
