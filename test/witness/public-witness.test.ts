// Issue 41 §3: what a public witness network needs of the log. A witness given only the log's
// Ed25519 and ML-DSA-44 vkeys (the keys such networks ask for: no 0xff ML-DSA-65 key, which no
// other tool reads) cosigns vouch's add-checkpoint submissions, because each checkpoint is sent as
// signed, with those two lines; and a monitor finds the newest cosigned checkpoint at
// GET <prefix>/<hex SHA-256 of the origin>/checkpoint (c2sp.org/tlog-witness, monitor retrieval).
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromBase64 } from '../../src/canonical/index.js';
import { startServer } from '../../src/http/node-server.js';
import { parseNote, parseVkey, verifyNote } from '../../src/log/index.js';
import { runWitness } from '../../src/witness/node-witness.js';
import { parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { until } from './_procs.js';
import { get, post } from '../http/_server.js';

const decide = (url: string, text: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });
const typeOf = (vkey: string) => fromBase64(vkey.slice(vkey.indexOf('+', vkey.indexOf('+') + 1) + 1))[0];
const hex = (s: string) => createHash('sha256').update(s).digest('hex');

describe('a public witness, given the log Ed25519 and ML-DSA-44 keys only', () => {
  it('cosigns the checkpoints vouch submits, and GET /tlog/<origin hash>/checkpoint serves the newest cosigned one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-public-witness-'));
    const data = join(dir, 'data');
    let s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    expect((await decide(s.url, 'one')).status).toBe(200);
    const { origin } = (await get(`${s.url}/v1/checkpoint`)).json;
    // Before any witness: the monitoring route has nothing to serve, and says so with a 404.
    expect((await get(`${s.url}/tlog/${hex(origin)}/checkpoint`)).status).toBe(404);
    // What the operator gives a public witness: the log's Ed25519 (0x01) and ML-DSA-44 (0x06) vkeys under its origin.
    const published = ((await get(`${s.url}/.well-known/vouch/vkeys`)).json as string).split('\n');
    const given = published.filter((l) => l.startsWith(`${origin}+`) && [0x01, 0x06].includes(typeOf(l)));
    expect(given.map((l) => parseVkey(l).alg).sort()).toEqual(['Ed25519', 'ML-DSA-44']);
    await s.close();

    const w = await runWitness({ data: join(dir, 'w'), name: 'witness.example/public', logs: [{ origin, vkeys: given.join('\n') + '\n' }], port: 0 });
    const cfg = join(dir, 'witnesses.json');
    writeFileSync(cfg, JSON.stringify({ witnesses: [{ url: w.url, vkeys: w.vkeys }], intervalMs: 100, timeoutMs: 2000, retries: 0 }));
    s = await startServer({ data, port: 0, idleCheckpointMs: 0, witnesses: cfg });
    try {
      expect((await decide(s.url, 'two')).status).toBe(200);
      const keys = w.vkeys.flatMap(parseCosignerVkeys);
      const cp = await until('cosigned by the public witness', async () => (await get(`${s.url}/v1/checkpoint`)).json, (j) => j.witnessed?.size === j.size);
      expect(verifyWitnesses(cp.checkpoint, keys, 1)).toMatchObject({ ok: true, witnesses: ['witness.example/public'] });

      const mon = await get(`${s.url}/tlog/${hex(origin)}/checkpoint`);
      expect(mon.status).toBe(200);
      const note = mon.json as string;
      // The checkpoint with the log's own signatures and the witness's cosignatures, as the spec asks.
      expect(verifyNote(note, given.map((l) => parseVkey(l)))).toMatchObject({ postQuantum: 'ML-DSA-44' });
      expect(verifyWitnesses(note, keys, 1).ok).toBe(true);
      expect(parseNote(note).text).toBe(parseNote(cp.checkpoint).text);
      // Another origin's hash, a hash in capitals, a tenant's tiles path: each its own answer.
      expect((await get(`${s.url}/tlog/${hex(`${origin}x`)}/checkpoint`)).status).toBe(404);
      expect((await get(`${s.url}/tlog/${hex(origin).toUpperCase()}/checkpoint`)).status).not.toBe(200);
      expect((await get(`${s.url}/tlog/default/checkpoint`)).status).toBe(200);
    } finally {
      await s.close();
      await w.close();
    }
  }, 180_000);
});
