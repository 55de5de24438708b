// Quiet by default (issue 37), as an operator's terminal sees real `vouch serve` and `vouch gateway`
// processes: an idle checkpoint is one short line at info (the signed note, 4.6 KB, only at debug
// and in DATA/checkpoints/); --log-level error|warn|info|debug chooses what reaches stderr, and
// anything else is a usage error naming the choices.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { publishedCheckpointPath } from '../../src/http/log-lifecycle.js';
import { createCosigner, formatCosignerVkey } from '../../src/witness/index.js';
import { everythingCmd, makeClient, makeWorkspace, textOf, VOUCH_BIN } from '../mcp/_gateway.js';
import { ROOT, startServe, type ServeChild } from './_serve.js';

const dataDir = () => join(mkdtempSync(join(tmpdir(), 'vouch-loglevel-')), 'data');
const decide = (url: string) =>
  fetch(`${url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } }) }).then((r) => r.json() as Promise<{ seq: number }>);
const jsonLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

/** Until the idle checkpoint over `size` entries is published (the file and /metrics, whatever is logged). */
async function published(s: ServeChild, size: number): Promise<void> {
  const end = Date.now() + 20_000;
  while (!new RegExp(`^vouch_checkpoint_published_size\\{tenant="default"\\} ${size}$`, 'm').test(await (await fetch(`${s.url}/metrics`)).text())) {
    if (Date.now() > end) throw new Error(`no checkpoint published; stderr: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('vouch serve: quiet by default', () => {
  it('an idle checkpoint is one short info line (tenant, size, root, file); no line carries the signed note', async () => {
    const data = dataDir();
    const s = await startServe(['--port', '0', '--data', data, '--checkpoint-idle', '1']);
    try {
      const { seq } = await decide(s.url);
      await published(s, seq + 1);
      await s.waitErr(/"msg":"checkpoint".*\n/);
      const cp = jsonLines(s.stderr()).find((l) => l.msg === 'checkpoint')!;
      expect(cp).toMatchObject({ level: 'info', reason: 'idle', tenant: 'default', size: seq + 1, root: expect.stringMatching(/^[0-9a-f]{64}$/), file: publishedCheckpointPath(data, 'default') });
      expect(cp).not.toHaveProperty('note');
      expect(cp.t).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const lines = s.stderr().split('\n');
    expect(lines.filter((l) => l.includes('"msg":"checkpoint"'))).toHaveLength(2); // idle, then shutdown
    for (const l of lines) expect(l.length).toBeLessThan(600);
    const signatures = readFileSync(publishedCheckpointPath(data, 'default'), 'utf8').split('\n').filter((l) => l.startsWith('\u2014 '));
    expect(signatures.length).toBeGreaterThanOrEqual(2);
    for (const sig of signatures) expect(s.stderr()).not.toContain(sig.slice(2, 60)); // no signature of the note, escaped or not
  }, 60_000);

  it('--log-level debug adds the signed note, as published', async () => {
    const data = dataDir();
    const s = await startServe(['--port', '0', '--data', data, '--checkpoint-idle', '1', '--log-level', 'debug']);
    try {
      const { seq } = await decide(s.url);
      await published(s, seq + 1);
      await s.waitErr(/"msg":"checkpoint note".*\n/);
      const note = jsonLines(s.stderr()).find((l) => l.msg === 'checkpoint note')!;
      expect(note).toMatchObject({ level: 'debug', reason: 'idle', tenant: 'default', size: seq + 1 });
      expect(note.note).toBe(readFileSync(publishedCheckpointPath(data, 'default'), 'utf8'));
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('--log-level warn: no checkpoint lines, warnings still; --log-level error: nothing but errors', async () => {
    const warn = await startServe(['--port', '0', '--data', dataDir(), '--checkpoint-idle', '1', '--log-level', 'warn']);
    try {
      const { seq } = await decide(warn.url);
      await published(warn, seq + 1);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await warn.stop();
    }
    expect(warn.stderr()).toMatch(/WARNING: no --auth given: development mode/);
    expect(warn.stderr()).not.toMatch(/checkpoint|shutting down/);
    const error = await startServe(['--port', '0', '--data', dataDir(), '--checkpoint-idle', '1', '--log-level', 'error']);
    try {
      const { seq } = await decide(error.url);
      await published(error, seq + 1);
    } finally {
      expect(await error.stop()).toBe(0);
    }
    expect(error.stderr()).toBe('');
  }, 90_000);
});

describe('vouch serve with a witness configured', () => {
  it('a witness that stays down is one warn line, not one per poll; no line carries a 1.8 KB ML-DSA-44 vkey', async () => {
    const data = dataDir();
    mkdirSync(data, { recursive: true });
    // A witness nobody runs: its failures are short warn lines too.
    const vkey = formatCosignerVkey(createCosigner('w.example/absent', 'Ed25519', new Uint8Array(32).fill(5)));
    writeFileSync(join(data, 'witnesses.json'), JSON.stringify({ witnesses: [{ url: 'http://127.0.0.1:9', vkeys: [vkey] }], intervalMs: 100, timeoutMs: 200, retries: 0 }));
    const s = await startServe(['--port', '0', '--data', data, '--checkpoint-idle', '0']);
    try {
      await decide(s.url);
      await s.waitErr(/"msg":"witness did not cosign".*\n/);
      await new Promise((r) => setTimeout(r, 2000)); // about twenty polls of the witness (intervalMs 100)
    } finally {
      await s.stop();
    }
    for (const l of s.stderr().split('\n')) expect(l.length).toBeLessThan(600);
    const down = jsonLines(s.stderr()).filter((l) => l.msg === 'witness did not cosign');
    expect(down).toHaveLength(1);
    expect(down[0]).toMatchObject({ level: 'warn', tenant: 'default', witness: 'w.example/absent' });
  }, 60_000);
});

describe('--log-level takes error, warn, info or debug', () => {
  it.each([['serve'], ['gateway', '--upstream-cmd', 'true'], ['witness', '--log', 'o=/nonexistent']])('vouch %s --log-level loud: a usage error naming the levels', (...cmd) => {
    const r = spawnSync(process.execPath, [VOUCH_BIN, ...cmd, '--data', dataDir(), '--log-level', 'loud'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--log-level takes error, warn, info or debug/);
  });
});

describe('vouch gateway --log-level', () => {
  it('warn: the protocol flows, stderr holds no info line (no ready line, no offer summary)', async () => {
    const ws = makeWorkspace('vouch-loglevel-gw-');
    const transport = new StdioClientTransport({ command: process.execPath, args: [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--log-level', 'warn'], cwd: ROOT, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as PassThrough).on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const { client } = makeClient();
    await client.connect(transport);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'quiet' } }))).toBe('Echo: quiet');
      await new Promise((r) => setTimeout(r, 1500)); // the offer summary comes in the background
    } finally {
      await client.close();
    }
    await new Promise((r) => setTimeout(r, 500));
    // The upstream's own stderr passes through (it is not the gateway's to filter): only vouch lines are judged.
    const ours = stderr.split('\n').filter((l) => l.startsWith('{') || l.startsWith('vouch'));
    expect(ours.filter((l) => !/"level":"(warn|error)"/.test(l) && !/^vouch gateway: WARNING/.test(l))).toEqual([]);
  }, 60_000);

  it('info (the default): one ready line, with its level and time', async () => {
    const ws = makeWorkspace('vouch-loglevel-gw-');
    const transport = new StdioClientTransport({ command: process.execPath, args: [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd()], cwd: ROOT, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as PassThrough).on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const { client } = makeClient();
    await client.connect(transport);
    await client.close();
    await new Promise((r) => setTimeout(r, 500));
    const ready = jsonLines(stderr).filter((l) => l.msg === 'vouch gateway ready (stdio)');
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({ level: 'info', t: expect.stringMatching(/^\d{4}-/) });
  }, 60_000);
});
