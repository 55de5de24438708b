// The MCP Inspector CLI from npm (`@modelcontextprotocol/inspector-cli`, pinned) as a second,
// independent client of `vouch gateway` (issue 36). Its era: MCP 2025-11-25 only. It is built on
// the SDK v1 (`@modelcontextprotocol/sdk` ^1.25.2, here 1.32.2, whose newest revision is
// 2025-11-25) and has no 2026-07-28 mode; the entries it causes record 2025-11-25. (It prints that
// v1 is deprecated in favour of `@modelcontextprotocol/inspector` 2.x, which is built on the SDK v2
// but requires Node >= 22.19, above this project's Node 20.) Over stdio (the
// CLI spawns the gateway process, which spawns server-everything) and over `--listen` (Streamable
// HTTP): tools/list and tools/call answers carry receipts that verify offline, a denied call is an
// error to the CLI and a signed deny in the log, and the log verifies and replays clean.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeys } from '../../src/store/node.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { everythingCmd, makeWorkspace, ROOT, VOUCH_BIN, vouch, type Workspace } from './_gateway.js';

/** The pinned version (package.json devDependencies); the test refuses to run another. */
const PINNED = '1.0.3';
const INSTALL = `npm install --save-dev --save-exact @modelcontextprotocol/inspector-cli@${PINNED}`;
/** node_modules/.bin, as a user runs it; VOUCH_INSPECTOR_CLI names another install of the same version. */
const CLI = process.env.VOUCH_INSPECTOR_CLI ?? join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');
/**
 * Where the CLI runs. It finds its own package.json (for its clientInfo) by checking `../package.json`
 * against the working directory and then importing it relative to its module: from a directory
 * whose parent holds a package.json (test/ under the repository), the import is its own.
 */
const CWD = join(ROOT, 'test');
const ORIGIN = 'vouch.local/default';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One CLI invocation: `--cli`, the method's options, then `--` and the target (a command or a URL).
 * The launcher takes its own options (e.g. --config) up to `--`, so the gateway's come after it; it
 * then hands the rest to the CLI proper without the `--`, where a variadic `--tool-arg` would take
 * the target's words as more key=value pairs: tool arguments go first, before another option.
 */
function inspect(options: string[], target: string[], toolArgs: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    const args = [...(toolArgs.length ? ['--tool-arg', ...toolArgs] : []), ...options];
    execFile(CLI, ['--cli', ...args, '--', ...target], { cwd: CWD, timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI's answer: the JSON it prints (after a deprecation banner on stderr only). */
function answer(run: Run): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

function receiptOf(result: Record<string, unknown>): { checkpoint: string } {
  const r = (result._meta as Record<string, unknown> | undefined)?.['io.vouch/receipt'];
  expect(r, 'the answer carries a vouch receipt').toBeDefined();
  return r as { checkpoint: string };
}

/** Offline, with the data dir's public keys under the log's origin. */
function verifyLocal(ws: Workspace, receipt: { checkpoint: string }) {
  const trust = parseTrust(loadKeys(ws.data, ORIGIN).keys.map((k) => k.vkey).join('\n'));
  return verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) });
}

type LogEntry = { seq: number; type: string; event?: string; phase?: string; flow?: string; target?: string; protocolVersion?: string; session?: string; principal?: string; decision?: { effect: string } };

function entries(ws: Workspace): LogEntry[] {
  const r = vouch(['log', 'tail', '--data', ws.data, '-n', '1000', '--json']);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

/** The log is whole: it verifies, and every decision replays to the same outcome in a fresh process. */
function expectLogClean(ws: Workspace): void {
  const v = vouch(['log', 'verify', '--data', ws.data]);
  expect(v.stdout, v.stderr).toContain('log verify: clean');
  const replayed = vouch(['replay', '--data', ws.data]);
  expect(replayed.status, replayed.stdout + replayed.stderr).toBe(0);
  expect(replayed.stdout).toMatch(/ 0 mismatch/);
}

const decisions = (es: LogEntry[], event: string) => es.filter((e) => e.type === 'decision' && e.event === event && e.flow === 'client-to-server');

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`the MCP Inspector CLI is not installed at ${CLI}: ${INSTALL}`);
  const pkg = JSON.parse(readFileSync(join(dirname(realpathSync(CLI)), '..', 'package.json'), 'utf8'));
  expect(pkg).toMatchObject({ name: '@modelcontextprotocol/inspector-cli', version: PINNED });
});

describe('the MCP Inspector CLI (npm, MCP 2025-11-25) in front of `vouch gateway` over stdio', () => {
  const ws = makeWorkspace('vouch-gw-inspector-');
  // Each CLI run spawns its own gateway process on the same data dir, one after another: the CLI
  // closes the gateway's stdin when it is done and waits for it to exit.
  const gateway = [process.execPath, VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--principal', 'alice', '--wait', 'signed'];

  it('lists the tools the policy shows, with a receipt that verifies offline', async () => {
    const list = answer(await inspect(['--method', 'tools/list'], gateway));
    const names = (list.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('get-env'); // hidden by the policy
    const report = verifyLocal(ws, receiptOf(list));
    expect(report.ok).toBe(true);
    expect(report.entry).toMatchObject({ event: 'tools/list', principal: 'alice', server: 'everything', protocolVersion: '2025-11-25' });
  }, 60_000);

  it('calls a tool: the redacted answer and its receipt', async () => {
    const r = answer(await inspect(['--method', 'tools/call', '--tool-name', 'echo'], gateway, ['message=from the inspector, mail me at bob@example.com']));
    expect((r.content as { text: string }[])[0].text).toBe('Echo: from the inspector, mail me at [EMAIL_REDACTED]');
    const report = verifyLocal(ws, receiptOf(r));
    expect(report.ok).toBe(true);
    expect(report.entry).toMatchObject({ type: 'decision', event: 'tools/call', principal: 'alice', protocolVersion: '2025-11-25' });
  }, 60_000);

  it('is refused a call the policy forbids: an MCP error (-32001) and no answer', async () => {
    const r = await inspect(['--method', 'tools/call', '--tool-name', 'get-env'], gateway);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Failed to call tool get-env');
    expect(r.stderr).toContain('-32001');
  }, 60_000);

  it('leaves every decision in a log that verifies and replays clean', () => {
    const es = entries(ws);
    const calls = decisions(es, 'tools/call');
    expect(calls.filter((e) => e.phase === 'request').map((e) => [e.target, e.decision!.effect])).toEqual([
      ['echo', 'allow'],
      ['get-env', 'deny'],
    ]);
    expect(calls.filter((e) => e.phase === 'response').map((e) => e.decision!.effect)).toEqual(['allow']);
    // tools/list by itself, and once more before each call (the CLI reads the tool's schema first).
    expect(decisions(es, 'tools/list').filter((e) => e.phase === 'request').length).toBe(3);
    for (const e of es.filter((x) => x.type === 'decision')) expect(e).toMatchObject({ principal: 'alice', protocolVersion: '2025-11-25' });
    expect(new Set(es.filter((x) => x.type === 'decision').map((e) => e.session)).size).toBe(3); // one gateway session per CLI run
    expect(es.filter((e) => e.type === 'execution').some((e) => e.target === 'echo')).toBe(true);
    expectLogClean(ws);
  }, 60_000);
});

describe('the MCP Inspector CLI in front of `vouch gateway --listen` (Streamable HTTP)', () => {
  const ws = makeWorkspace('vouch-gw-inspector-http-');
  let child: ChildProcess;
  let url = '';
  let stdout = '';
  beforeAll(async () => {
    child = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--listen', '127.0.0.1:0', '--principal', 'bob', '--wait', 'signed', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    for (let i = 0; i < 600 && !/vouch gateway on (http:\/\/\S+\/mcp)/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
    url = /vouch gateway on (http:\/\/\S+\/mcp)/.exec(stdout)![1];
  }, 60_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  /** Verified with the keys the gateway serves (its JWKS), as a caller over HTTP would. */
  async function verifyServed(receipt: { checkpoint: string }) {
    const jwks = await (await fetch(new URL('/.well-known/vouch/keys', url))).text();
    return verifyReceipt(receipt, { verifiers: verifiersFor(parseTrust(jwks), receipt.checkpoint) });
  }

  it('lists and calls over HTTP, each answer with a receipt that verifies with the served keys', async () => {
    const list = answer(await inspect(['--method', 'tools/list'], [url]));
    expect((list.tools as { name: string }[]).map((t) => t.name)).toContain('echo');
    const listed = await verifyServed(receiptOf(list));
    expect(listed.ok).toBe(true);
    expect(listed.entry).toMatchObject({ event: 'tools/list', principal: 'bob', protocolVersion: '2025-11-25' });

    const r = answer(await inspect(['--method', 'tools/call', '--tool-name', 'echo'], [url], ['message=over http']));
    expect((r.content as { text: string }[])[0].text).toBe('Echo: over http');
    const called = await verifyServed(receiptOf(r));
    expect(called.ok).toBe(true);
    expect(called.entry).toMatchObject({ event: 'tools/call', principal: 'bob', protocolVersion: '2025-11-25' });
    expect(called.entry!.session).not.toBe(listed.entry!.session); // each CLI run is its own MCP session

    const denied = await inspect(['--method', 'tools/call', '--tool-name', 'get-env'], [url]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('-32001');
  }, 120_000);

  it('after shutdown, the log holds the decisions, verifies and replays clean', async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const es = entries(ws);
    expect(decisions(es, 'tools/call').filter((e) => e.phase === 'request').map((e) => [e.target, e.decision!.effect])).toEqual([
      ['echo', 'allow'],
      ['get-env', 'deny'],
    ]);
    for (const e of es.filter((x) => x.type === 'decision' && x.flow === 'client-to-server')) expect(e).toMatchObject({ principal: 'bob', protocolVersion: '2025-11-25' });
    expectLogClean(ws);
  }, 60_000);
});
