// A remote interceptor server behind the Worker as deployed code: `wrangler dev --local` (real
// workerd, the real handler) running the example config plus a remote declaration, connected to a
// real vouch interceptor server on 127.0.0.1. The isolate connects once and every later request
// (each its own request context, some concurrent) is decided with that connection; the server
// going away denies (recorded) until it is back; the exported bundle verifies with `vouch verify`
// and replays to `match` on Node from the recorded answers, with the server stopped.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { formatKeyText } from '../../src/crypto/index.js';
import { generateSeed } from '../../src/crypto/node.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import type { Json } from '../../src/interceptors/types.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { checkWorkerConfig, WORKER_CONFIG_SOURCE } from '../../scripts/build-worker-config.js';
import { ROOT, startDev, type DevServer } from './_wrangler.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-wrangler-remote-'));
const serverConfig = join(dir, 'interceptors.json');
writeFileSync(serverConfig, JSON.stringify({ version: 1, interceptors: [{ name: 'corp/require-upper', use: 'conformance/require-uppercase-note', hooks: [{ events: ['tools/call'], phase: 'request' }] }] }));
let remote: RunningServer | undefined;
let dev: DevServer;

const startRemote = async (port = 0) => (remote = await startServer({ data: join(dir, 'remote-data'), port, config: serverConfig, idleCheckpointMs: 0, logLine: () => {} }));

const decide = async (note: string) => {
  const res = await fetch(`${dev.url}/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { note } }, context: { sessionId: 's1', server: 'everything' } }),
  });
  expect(res.status, dev.output()).toBe(200);
  const json = (await res.json()) as any;
  return { effect: json.effect as string, chain: json.chain, state: JSON.parse(utf8.decode(fromBase64(json.receipt.entry))).state as Record<string, any> };
};

const vouch = (...args: string[]) =>
  new Promise<{ status: number | null; out: string }>((resolve) =>
    execFile(process.execPath, [join(ROOT, 'bin/vouch.js'), ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, out: stdout + stderr }),
    ),
  );

beforeAll(async () => {
  const server = await startRemote();
  // The example config Node runs, with a remote declaration added, checked as build:config checks it.
  const document = structuredClone((await loadConfigFile(WORKER_CONFIG_SOURCE)).resolved) as unknown as { interceptors: Json[] };
  document.interceptors.push({ name: 'corp', remote: { url: `${server.url}/mcp`, names: ['corp/require-upper'] } });
  // For wrangler dev (the Worker runs here): a deployed Worker's build refuses a loopback server.
  await checkWorkerConfig(resolveConfigDocument(document as unknown as Json), 'the example config with a remote interceptor server', { target: 'local' });
  writeFileSync(join(dir, '.dev.vars'), `VOUCH_SIGNING_KEY='${formatKeyText('ML-DSA-65', generateSeed()).trim()}'\n`, { mode: 0o600 });
  dev = await startDev({ persist: join(dir, 'state'), envFile: join(dir, '.dev.vars'), config: document, entryDir: dir });
}, 180_000);

afterAll(async () => {
  await dev?.stop();
  await remote?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('wrangler dev: a remote interceptor server behind the Worker', () => {
  it("decides with the server's answers on request after request, concurrent ones too, each recorded", async () => {
    const first = await decide('FIRST');
    expect(first.effect, JSON.stringify(first.chain)).toBe('allow');
    expect(first.state['corp/require-upper']).toMatchObject({ type: 'validation', valid: true });
    const notes = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `quiet ${i}` : `LOUD ${i}`));
    const answers = await Promise.all(notes.map(decide));
    expect(answers.map((a) => a.effect)).toEqual(notes.map((n) => (n === n.toUpperCase() ? 'allow' : 'deny')));
    for (const [i, a] of answers.entries()) expect(a.state['corp/require-upper'], notes[i]).toMatchObject({ type: 'validation', valid: notes[i] === notes[i].toUpperCase() });
    expect(dev.output()).not.toMatch(/different request|I\/O on behalf/i);
  });

  it('the server gone: denied and recorded; back on its port: decided by it again', async () => {
    const port = remote!.port;
    await remote!.close();
    remote = undefined;
    const down = await decide('WHILE DOWN');
    expect(down.effect).toBe('deny');
    expect(down.chain.abortedAt).toMatchObject({ interceptor: 'corp/require-upper', reason: expect.stringContaining('interceptor server: ') });
    expect(down.state['corp/require-upper']).toEqual({ error: expect.any(String) });
    await startRemote(port);
    expect((await decide('BACK')).effect).toBe('allow');
  });

  it('the exported bundle verifies with `vouch verify` and replays to match from the recorded answers, the server stopped', async () => {
    await remote?.close();
    remote = undefined;
    writeFileSync(join(dir, 'jwks.json'), Buffer.from(await (await fetch(`${dev.url}/.well-known/vouch/keys`)).arrayBuffer()));
    const res = await fetch(`${dev.url}/v1/export?payloads=true`);
    expect(res.status).toBe(200);
    writeFileSync(join(dir, 'bundle.tar.gz'), Buffer.from(await res.arrayBuffer()));
    const r = await vouch('verify', 'bundle.tar.gz', '--key', 'jwks.json', '--json');
    expect(r.status, r.out).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ ok: true, findings: [] });
    const decisions = 1 + 12 + 2;
    expect(report.replay).toMatchObject({ mismatch: 0, unreplayable: 0, match: decisions, remoteAnswers: decisions });
  });
});
