// globalSetup of the workerd suite (runs in Node): `vouch verify` for bundles exported inside
// workerd, so a spec checks that what a Worker wrote verifies and replays on Node (the Node build
// of Cedar, the CLI a third party runs). POST {files: {name: base64}, key: JWKS text} to the URL
// provided as inject('nodeVerify'); the answer is the command's exit code and output.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    nodeVerify: string;
  }
}

const VOUCH = fileURLToPath(new URL('../../../bin/vouch.js', import.meta.url));

function vouchVerify(dir: string, key: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const c = spawn(process.execPath, [VOUCH, 'verify', dir, '--key', key, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout!.on('data', (d) => (out += d));
    c.stderr!.on('data', (d) => (err += d));
    c.once('exit', (code) => done({ code, out, err }));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'vouch-workerd-node-verify-'));
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      try {
        const { files, key } = JSON.parse(body) as { files: Record<string, string>; key: string };
        const dir = join(root, `b${++n}`);
        for (const [name, b64] of Object.entries(files)) {
          const path = resolve(dir, name);
          if (!path.startsWith(dir + '/')) throw new Error(`bundle file outside the bundle: ${name}`);
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, Buffer.from(b64, 'base64'));
        }
        const keyFile = join(root, `b${n}.keys.json`);
        writeFileSync(keyFile, key);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(await vouchVerify(dir, keyFile)));
      } catch (e) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: (e as Error).message }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  project.provide('nodeVerify', `http://127.0.0.1:${(server.address() as AddressInfo).port}/verify`);
  return async () => {
    await new Promise((r) => server.close(r));
    rmSync(root, { recursive: true, force: true });
  };
}
