// Issue 18 section 2 end to end with real processes on loopback: `vouch serve` as the log and two
// `vouch witness` processes, plus a witness that accepts connections and never answers. Cosigned
// checkpoints are served, receipts carry the cosignatures, `vouch verify --min-witnesses K`
// passes with K and fails with K+1 (and with K-1 cosignatures left), a dead or hanging witness
// delays no decision, /metrics says how far behind it is, and a restarted witness keeps its state.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVkey, verifyNote } from '../../src/log/index.js';
import { createCosigner, formatAddCheckpoint, formatCosignerVkey, parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { startServe, type ServeChild } from '../cli/_serve.js';
import { checkpointOf, decide, startLog, startWitness, until, vouch, type WitnessChild } from './_procs.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-e2e-'));
const logData = join(dir, 'log');
let log: ServeChild;
let w1: WitnessChild;
let w2: WitnessChild;
let origin: string;
let vkeyFile: string;
let hang: Server;
const hangSockets = new Set<Socket>();
const keysOf = (w: WitnessChild) => w.vkeys.flatMap(parseCosignerVkeys);

beforeAll(async () => {
  // First start: the log's keys and origin, which the witnesses are configured with.
  const first = await startServe(['--port', '0', '--data', logData, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
  const vkeys = await (await fetch(`${first.url}/.well-known/vouch/vkeys`)).text();
  await decide(first.url);
  origin = (await checkpointOf(first.url)).origin;
  await first.stop();
  vkeyFile = join(dir, 'log.vkeys');
  writeFileSync(vkeyFile, vkeys);
  [w1, w2] = await Promise.all([
    startWitness(join(dir, 'w1'), ['--name', 'w1.example/witness', '--log', `${origin}=${vkeyFile}`]),
    startWitness(join(dir, 'w2'), ['--name', 'w2.example/witness', '--log', `${origin}=${vkeyFile}`]),
  ]);
  // A third witness that accepts connections and never answers: it must cost decisions nothing.
  hang = createServer((s) => {
    hangSockets.add(s);
    s.on('close', () => hangSockets.delete(s));
  }).listen(0, '127.0.0.1');
  await new Promise((r) => hang.once('listening', r));
  const hangKey = formatCosignerVkey(createCosigner('hang.example/witness', 'Ed25519', new Uint8Array(32).fill(9)));
  const hanging = { url: `http://127.0.0.1:${(hang.address() as { port: number }).port}`, name: 'hang.example/witness', vkeys: [hangKey], stderr: () => '', stop: async () => 0 };
  log = await startLog(logData, [w1, w2, hanging]);
}, 240_000);

afterAll(async () => {
  await log?.stop();
  await Promise.all([w1?.stop(), w2?.stop()]);
  for (const s of hangSockets) s.destroy();
  hang?.close();
});

describe('a log and two witnesses over loopback', () => {
  it('serves checkpoints and receipts with both cosignatures and its own ML-DSA-44 log signature; --min-witnesses K holds', async () => {
    const { seq } = await decide(log.url);
    const both = [...keysOf(w1), ...keysOf(w2)];
    const cp = await until('two cosignatures', () => checkpointOf(log.url), (c) => c.size > seq && verifyWitnesses(c.checkpoint, both, 2).ok).catch((e) => {
      throw new Error(`${(e as Error).message.slice(0, 200)}\nlog stderr: ${log.stderr().slice(-1500)}`);
    });
    const verdict = verifyWitnesses(cp.checkpoint, both, 2);
    expect(verdict.witnesses.sort()).toEqual(['w1.example/witness', 'w2.example/witness']);
    expect(verdict.cosignatures.map((c) => c.alg).sort()).toEqual(['Ed25519', 'Ed25519', 'ML-DSA-44', 'ML-DSA-44']);
    // The log's own ML-DSA-44 line (type 0x06) is a log signature now, under a key of its published vkeys.
    const pq44 = readFileSync(vkeyFile, 'utf8').split('\n').filter((l) => l.startsWith(`${origin}+`)).map((l) => parseVkey(l)).filter((v) => v.alg === 'ML-DSA-44');
    expect(pq44).toHaveLength(1);
    expect(verifyNote(cp.checkpoint, pq44)).toMatchObject({ postQuantum: 'ML-DSA-44', signatures: [{ alg: 'ML-DSA-44', name: origin }] });

    const { receipt } = (await (await fetch(`${log.url}/v1/entries/${seq}`)).json()) as { receipt: { checkpoint: string } };
    expect(verifyWitnesses(receipt.checkpoint, both, 2).ok).toBe(true);
    const rf = join(dir, 'receipt.json');
    writeFileSync(rf, JSON.stringify(receipt));
    const w2file = join(dir, 'w2.vkeys');
    writeFileSync(w2file, w2.vkeys.join('\n') + '\n');
    const args = ['verify', rf, '--key', vkeyFile, '--witness', w1.vkeys[0], '--witness', w1.vkeys[1], '--witness', w2file];
    const ok = vouch([...args, '--min-witnesses', '2', '--json']);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(new Set(report.witnesses.map((w: { name: string }) => w.name))).toEqual(new Set(['w1.example/witness', 'w2.example/witness']));
    expect(report.witnessTime).toBe(verdict.latest);
    const text = vouch([...args, '--min-witnesses', '2']);
    expect(text.stdout).toMatch(/witnesses\s+cosigned by 2 witness\(es\).*w1\.example\/witness.*w2\.example\/witness.*latest cosignature \d{4}-/);
    expect(vouch([...args, '--min-witnesses', '3']).status).toBe(1);
    // K-1 cosignatures: strip w2's lines; K=2 fails, K=1 passes.
    const stripped = { ...receipt, checkpoint: receipt.checkpoint.split('\n').filter((l) => !l.startsWith('\u2014 w2.example/witness ')).join('\n') };
    writeFileSync(rf, JSON.stringify(stripped));
    const one = vouch([...args, '--min-witnesses', '2']);
    expect(one.status).toBe(1);
    expect(one.stdout).toMatch(/1 of the trusted witnesses cosigned this checkpoint, 2 required/);
    expect(vouch([...args, '--min-witnesses', '1']).status).toBe(0);
  }, 120_000);

  it('a witness that is down delays no decision; metrics say how far behind; restarted, it keeps its state and catches up', async () => {
    const port = new URL(w2.url).port;
    await w2.stop();
    for (let i = 0; i < 5; i++) expect((await decide(log.url, `down ${i}`)).ms).toBeLessThan(1000);
    const size = (await checkpointOf(log.url)).size;
    const metric = (text: string, name: string, w: string) => Number(new RegExp(`${name}\\{tenant="default",witness="${w}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
    const m = await until('w2 behind in /metrics', async () => (await fetch(`${log.url}/metrics`)).text(), (t) => metric(t, 'vouch_witness_behind_entries', 'w2.example/witness') > 0 && metric(t, 'vouch_witness_behind_entries', 'w1.example/witness') === 0 && metric(t, 'vouch_witness_failures_total', 'hang.example/witness') > 0); // the hanging one fails only at its 1.5 s timeout
    expect(metric(m, 'vouch_witness_failures_total', 'w2.example/witness')).toBeGreaterThan(0);
    expect(metric(m, 'vouch_witness_failures_total', 'hang.example/witness')).toBeGreaterThan(0);
    // What the log recorded as w2's last cosigned size (the behind gauge may be from an older round).
    const held = metric(m, 'vouch_witness_cosigned_size', 'w2.example/witness');
    expect(held).toBeLessThan(size);

    // Restarted on its port, name read from its key files: same keys, and it still holds `held`.
    w2 = await startWitness(join(dir, 'w2'), ['--port', port, '--log', `${origin}=${vkeyFile}`]);
    expect(w2.name).toBe('w2.example/witness');
    const latest = await checkpointOf(log.url);
    const r = await fetch(`${w2.url}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: latest.checkpoint }) });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toBe('text/x.tlog.size');
    expect(Number((await r.text()).trim())).toBeGreaterThanOrEqual(held);
    await until('w2 caught up', async () => (await fetch(`${log.url}/metrics`)).text(), (t) => metric(t, 'vouch_witness_behind_entries', 'w2.example/witness') === 0);
    const cp = await until('w2 cosigns again', () => checkpointOf(log.url), (c) => verifyWitnesses(c.checkpoint, keysOf(w2), 1).ok);
    expect(cp.size).toBeGreaterThanOrEqual(size);
  }, 120_000);
});
