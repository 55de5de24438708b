// Issue 18 across its parts, with real processes on loopback: `vouch serve` as the log and two
// `vouch witness` processes. The log rotates its keys over REST while witnessed; the witnesses
// refuse the new keys until their vkey file is refreshed from the log (no restart), then cosign
// again; a checkpoint the retired key signs past its handover is refused (403 key-retired).
// Bundles (`vouch export` and GET /v1/export) carry the key history (keys.json with each key's
// sizes) and the witnesses' cosignatures, and `vouch verify BUNDLE --witness VKEY --min-witnesses K`
// holds with K cosignatures and fails with K-1 — for a bundle of the new keys' range and of the old.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar } from '../../src/audit/index.js';
import { createNodeEd25519Signer, createSignerFromSeed, readKeyFile } from '../../src/crypto/node.js';
import { noteSignerFor, parseCheckpoint, parseNote, signCheckpoint } from '../../src/log/index.js';
import { formatAddCheckpoint, parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { spawn } from 'node:child_process';
import { startServe, type ServeChild } from '../cli/_serve.js';
import { BIN, ROOT } from '../cli/_serve.js';
import { checkpointOf, decide, startLog, startWitness, until, type WitnessChild } from './_procs.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-rotation-'));
const logData = join(dir, 'log');
const vkeyFile = join(dir, 'log.vkeys');
let log: ServeChild;
let w1: WitnessChild;
let w2: WitnessChild;
let origin: string;
/** The newest checkpoint both witnesses cosigned before the rotation. */
let before: { size: number; checkpoint: string };
let rotation: { seq: number; size: number };
const both = () => [...w1.vkeys, ...w2.vkeys].flatMap(parseCosignerVkeys);
const witnessArgs = () => [...w1.vkeys.flatMap((v) => ['--witness', v]), '--witness', w2file];
let w2file: string;

/** The CLI as a child process, awaited (never spawnSync: a blocked event loop leaves dead keep-alive sockets in fetch's pool). */
function vouch(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The text files of a .tar.gz bundle, by name. */
async function tarFiles(path: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const item of readTar((async function* () { yield new Uint8Array(gunzipSync(readFileSync(path))); })())) {
    if (item.type !== 'file') continue;
    const chunks: Uint8Array[] = [];
    for await (const c of item.body) chunks.push(c.slice());
    out.set(item.name, Buffer.concat(chunks).toString('utf8'));
  }
  return out;
}

const metric = (text: string, name: string, w: string) => Number(new RegExp(`${name}\\{tenant="default",witness="${w}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
const metrics = async () => (await fetch(`${log.url}/metrics`)).text();

beforeAll(async () => {
  const first = await startServe(['--port', '0', '--data', logData, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
  writeFileSync(vkeyFile, await (await fetch(`${first.url}/.well-known/vouch/vkeys`)).text());
  await decide(first.url);
  origin = (await checkpointOf(first.url)).origin;
  await first.stop();
  [w1, w2] = await Promise.all([
    startWitness(join(dir, 'w1'), ['--name', 'w1.example/witness', '--log', `${origin}=${vkeyFile}`]),
    startWitness(join(dir, 'w2'), ['--name', 'w2.example/witness', '--log', `${origin}=${vkeyFile}`]),
  ]);
  w2file = join(dir, 'w2.vkeys');
  writeFileSync(w2file, w2.vkeys.join('\n') + '\n');
  log = await startLog(logData, [w1, w2]);
  const { seq } = await decide(log.url, 'before the rotation');
  before = await until('both witnesses cosign', () => checkpointOf(log.url), (c) => c.size > seq && verifyWitnesses(c.checkpoint, both(), 2).ok);
}, 240_000);

afterAll(async () => {
  await log?.stop();
  await Promise.all([w1?.stop(), w2?.stop()]);
});

describe('a witnessed log rotates its keys', () => {
  it('rotates over REST; the witnesses refuse the new keys until their vkey file is refreshed, then cosign again without a restart', async () => {
    const r = await fetch(`${log.url}/v1/keys/rotate`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    rotation = ((await r.json()) as { logs: { seq: number; size: number }[] }).logs[0];
    expect(rotation.seq).toBeGreaterThanOrEqual(before.size);
    const { seq } = await decide(log.url, 'after the rotation');
    // Signed by keys the witnesses were not given: they answer 403, the log falls behind (and says so).
    const behind = await until('both witnesses behind', metrics, (t) => metric(t, 'vouch_witness_behind_entries', 'w1.example/witness') > 0 && metric(t, 'vouch_witness_behind_entries', 'w2.example/witness') > 0);
    expect(metric(behind, 'vouch_witness_failures_total', 'w1.example/witness')).toBeGreaterThan(0);
    await log.waitErr(/witness did not cosign.*403|403.*witness did not cosign/);
    // The operator refreshes the file from the log's published key set (now with the history).
    const served = await (await fetch(`${log.url}/.well-known/vouch/vkeys`)).text();
    expect(served).toMatch(new RegExp(`^# key ${origin.replace('/', '\\/')}\\+[0-9a-f]{8} log ${origin.replace('/', '\\/')} from 0 to ${rotation.size} revoked-after -$`, 'm'));
    writeFileSync(vkeyFile, served);
    const cp = await until('both witnesses cosign the new keys', () => checkpointOf(log.url), (c) => c.size > seq && verifyWitnesses(c.checkpoint, both(), 2).ok, 30_000);
    expect(/^\u2014 (\S+) /m.exec(cp.checkpoint)![1]).toBe(origin); // signed by the new keys, under the origin
    expect(w1.stderr()).toMatch(/re-read the keys of .* from /);
    await until('caught up', metrics, (t) => metric(t, 'vouch_witness_behind_entries', 'w1.example/witness') === 0 && metric(t, 'vouch_witness_behind_entries', 'w2.example/witness') === 0);
  }, 120_000);

  it('a checkpoint the retired keys sign past the handover is refused by the witness (403 key-retired), however consistent', async () => {
    const latest = await checkpointOf(log.url);
    const cp = parseCheckpoint(parseNote(latest.checkpoint).text);
    expect(cp.size).toBeGreaterThan(rotation.size);
    // The outgoing key files, kept (0600) in keys/history/ by the rotation: what a thief of the old keys holds.
    const hist = join(logData, 'keys', 'history');
    const file = (suffix: string) => readKeyFile(join(hist, readdirSync(hist).find((f) => f.endsWith(suffix))!));
    const mldsa = await createSignerFromSeed(file('mldsa65.key').seed, { thread: false });
    const ed = createNodeEd25519Signer(file('ed25519.key').seed);
    const forged = await signCheckpoint(cp, [noteSignerFor(origin, mldsa), noteSignerFor(origin, ed)]);
    for (const w of [w1, w2]) {
      const res = await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint({ oldSize: cp.size, proof: [], checkpoint: forged }) });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/key-retired/);
    }
    // The same tree signed by the keys in force is not refused for its signature (409: already held).
    const honest = await fetch(`${w1.url}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: latest.checkpoint }) });
    expect(honest.status).toBe(409);
  }, 60_000);
});

describe('bundles carry the key history and the cosignatures', () => {
  let served: string;
  let jwksFile: string;
  beforeAll(async () => {
    served = join(dir, 'served.vkeys');
    writeFileSync(served, await (await fetch(`${log.url}/.well-known/vouch/vkeys`)).text());
    jwksFile = join(dir, 'served.jwks.json');
    writeFileSync(jwksFile, await (await fetch(`${log.url}/.well-known/vouch/keys`)).text());
  });

  const keysOf = (keysJson: string) => JSON.parse(keysJson) as { vkeys: string[]; jwks: { keys: { vouch_logs?: Record<string, { from: number; to?: number }> }[] } };
  const checkBundle = async (bundle: string, label: string) => {
    const ok = await vouch(['verify', bundle, '--key', served, ...witnessArgs(), '--min-witnesses', '2', '--json']);
    expect(ok.status, `${label}: ${ok.stdout}${ok.stderr}`).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report.verdict).toBe('clean');
    expect(new Set(report.witnesses.map((w: { name: string }) => w.name))).toEqual(new Set(['w1.example/witness', 'w2.example/witness']));
    expect(report.witnessTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(report.witnessCheck).toMatchObject({ ok: true });
    const text = await vouch(['verify', bundle, '--key', jwksFile, ...witnessArgs(), '--min-witnesses', '2']);
    expect(text.status, text.stdout).toBe(0);
    expect(text.stdout).toMatch(/witnesses: cosigned by 2 witness\(es\).*w1\.example\/witness.*w2\.example\/witness.*latest cosignature \d{4}-/);
    const three = await vouch(['verify', bundle, '--key', served, ...witnessArgs(), '--min-witnesses', '3']);
    expect(three.status).toBe(1);
    expect(three.stdout).toMatch(/\[witnesses\] 2 of the trusted witnesses cosigned this checkpoint, 3 required/);
  };

  it('vouch export (beside the running service): keys.json with the windows, the checkpoint with both cosignatures; verify --min-witnesses holds', async () => {
    const out = join(dir, 'cli-bundle');
    const e = await vouch(['export', '-o', out, '--data', logData]);
    expect(e.status, e.stderr).toBe(0);
    const keys = keysOf(readFileSync(join(out, 'keys.json'), 'utf8'));
    const windows = keys.jwks.keys.map((k) => k.vouch_logs?.[origin]);
    expect(windows).toContainEqual({ from: 0, to: rotation.size });
    expect(windows).toContainEqual({ from: rotation.size });
    const note = readFileSync(join(out, 'checkpoint'), 'utf8');
    expect(verifyWitnesses(note, both(), 2).ok).toBe(true);
    await checkBundle(out, 'cli export');
    // K-1: the same bundle with w2's cosignature lines removed fails K=2 and passes K=1.
    writeFileSync(join(out, 'checkpoint'), note.split('\n').filter((l) => !l.startsWith('\u2014 w2.example/witness ')).join('\n'));
    const one = await vouch(['verify', out, '--key', served, ...witnessArgs(), '--min-witnesses', '2']);
    expect(one.status).toBe(1);
    expect(one.stdout).toMatch(/\[witnesses\] 1 of the trusted witnesses cosigned this checkpoint, 2 required/);
    expect((await vouch(['verify', out, '--key', served, ...witnessArgs(), '--min-witnesses', '1'])).status).toBe(0);
    // Without a witness policy the cosignatures are not weighed: the bundle is clean either way.
    expect((await vouch(['verify', out, '--key', served])).status).toBe(0);
  }, 120_000);

  it('a bundle of the range the old keys signed verifies after the rotation with the published history, cosigned', async () => {
    const out = join(dir, 'old-range.tar.gz');
    const e = await vouch(['export', '-o', out, '--to', String(before.size), '--data', logData]);
    expect(e.status, e.stderr).toBe(0);
    const files = await tarFiles(out);
    const note = files.get('checkpoint');
    expect(note).toBe(before.checkpoint); // the witnessed checkpoint of that size, as served then
    await checkBundle(out, 'old range');
    // A trusted key file with only the keys signing now cannot vouch for it.
    const k = JSON.parse(readFileSync(jwksFile, 'utf8')) as { keys: { x: string; vouch_logs?: Record<string, { to?: number }> }[] };
    const current = join(dir, 'current.jwks.json');
    writeFileSync(current, JSON.stringify({ keys: k.keys.filter((x) => x.vouch_logs?.[origin]?.to === undefined) }));
    const r = await vouch(['verify', out, '--key', current, ...witnessArgs(), '--min-witnesses', '2']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\[trusted-key\]/);
  }, 120_000);

  it('GET /v1/export: the same key history and cosignatures', async () => {
    const res = await fetch(`${log.url}/v1/export`);
    expect(res.status).toBe(200);
    const out = join(dir, 'rest-bundle.tar.gz');
    writeFileSync(out, Buffer.from(await res.arrayBuffer()));
    const files = await tarFiles(out);
    const keys = keysOf(files.get('keys.json')!);
    const windows = keys.jwks.keys.map((k) => k.vouch_logs?.[origin]);
    expect(windows).toContainEqual({ from: 0, to: rotation.size });
    expect(windows).toContainEqual({ from: rotation.size });
    expect(verifyWitnesses(files.get('checkpoint')!, both(), 2).ok).toBe(true);
    await checkBundle(out, 'rest export');
  }, 120_000);
});
