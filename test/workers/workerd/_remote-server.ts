// globalSetup of the workerd suite (runs in Node): a real vouch interceptor server, `vouch serve`
// in development mode on 127.0.0.1, whose chain holds two interceptors the Worker under test
// connects as remote interceptors over MCP (Streamable HTTP on workerd's own fetch); and a control
// port that stops it (SIGTERM: connections are refused, the server is down) and starts it again on
// the same port. The specs read both URLs with inject('remoteInterceptors'). A child process, not
// an import: this config's aliases (the Cedar web build) are for workerd, not for Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

export interface RemoteInterceptors {
  /** The interceptor server's MCP endpoint. */
  url: string;
  /** POST <control>/down stops it, POST <control>/up starts it again; each answers when done. */
  control: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    remoteInterceptors: RemoteInterceptors;
  }
}

const VOUCH = fileURLToPath(new URL('../../../bin/vouch.js', import.meta.url));

/** What the server hosts: SEP-2624 conformance behaviors, one validation and one mutation, on tools/call requests. */
const SERVER_CONFIG = {
  version: 1,
  interceptors: [
    { name: 'corp/require-upper', use: 'conformance/require-uppercase-note', hooks: [{ events: ['tools/call'], phase: 'request' }] },
    { name: 'corp/upper', use: 'conformance/uppercase-note', hooks: [{ events: ['tools/call'], phase: 'request' }] },
  ],
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-remote-interceptors-'));
  const config = join(dir, 'server.json');
  writeFileSync(config, JSON.stringify(SERVER_CONFIG));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';

  const up = async () => {
    if (child) return;
    const c = spawn(process.execPath, [VOUCH, 'serve', '--data', join(dir, 'data'), '--config', config, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout!.on('data', (d) => (output += d));
    c.stderr!.on('data', (d) => (output += d));
    child = c;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && c.exitCode === null) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`vouch serve did not answer on ${base}:\n${output}`);
  };
  const down = async () => {
    const c = child;
    if (!c) return;
    child = undefined;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  await up();

  // One change at a time, in order: a `down` and an `up` sent together must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const control = createServer((req, res) => {
    const action = req.url === '/down' ? down : req.url === '/up' ? up : undefined;
    if (req.method !== 'POST' || !action) return void res.writeHead(404).end();
    queue = queue.then(async () => {
      try {
        await action();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ up: child !== undefined }));
      } catch (e) {
        res.writeHead(500).end(String(e));
      }
    });
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide('remoteInterceptors', { url: `${base}/mcp`, control: `http://127.0.0.1:${(control.address() as AddressInfo).port}` });

  return async () => {
    await new Promise((resolve) => control.close(resolve));
    await down();
    rmSync(dir, { recursive: true, force: true });
  };
}
