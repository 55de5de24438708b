// globalSetup of the workerd suite (runs in Node): a real `vouch witness` on 127.0.0.1 for the
// witnessing specs (witness.spec.ts), trusting the logs of the tenants WITNESSED_TENANTS under the
// suite's fixed test keys (vitest.workers.config.ts: seeds of 7s and 8s, key name test.vouch).
// A child process, as the interceptor server in _remote-server.ts. The specs read its URL and
// vkeys with inject('witness').
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ed25519PublicKeyFromSeed, mldsaKeyFromSeed } from '../../../src/crypto/index.js';
import { formatVkey } from '../../../src/log/vkey.js';

export interface TestWitness {
  url: string;
  name: string;
  vkeys: string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    witness: TestWitness;
  }
}

/** The tenants whose logs the witness trusts (each spec its own: the witness keeps one record per origin). */
export const WITNESSED_TENANTS = ['wit-a', 'wit-b', 'wit-c'];
const VOUCH = fileURLToPath(new URL('../../../bin/vouch.js', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-workerd-witness-'));
  const mldsa = mldsaKeyFromSeed(new Uint8Array(32).fill(7)).publicKey;
  const ed = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(8));
  const logs = WITNESSED_TENANTS.map((tenant) => {
    const origin = `test.vouch/${tenant}`;
    const file = join(dir, `${tenant}.vkeys`);
    writeFileSync(file, `${formatVkey(origin, 'ML-DSA-65', mldsa)}\n${formatVkey(origin, 'Ed25519', ed)}\n`);
    return ['--log', `${origin}=${file}`];
  });
  const child: ChildProcess = spawn(process.execPath, [VOUCH, 'witness', '--name', 'w1.test/witness', '--data', join(dir, 'w'), '--port', '0', '--json', ...logs.flat()], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const deadline = Date.now() + 90_000;
  while (!out.includes('\n')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`vouch witness did not start (exit ${child.exitCode}): ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ready = JSON.parse(out.split('\n')[0]) as TestWitness;
  project.provide('witness', { url: ready.url, name: ready.name, vkeys: ready.vkeys });
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
