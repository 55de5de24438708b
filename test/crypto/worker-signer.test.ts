// The worker-thread ML-DSA-65 signer: correct signatures, a free event loop, crash handling.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMldsaSigner, verifyMldsa } from '../../src/crypto/index.js';
import { createSignerFromSeed, createWorkerSigner, prestartSignWorker } from '../../src/crypto/node.js';

const seed = new Uint8Array(32).fill(9);
const msg = (i: number): Uint8Array => new TextEncoder().encode(`entry ${i}\n`);

describe('createWorkerSigner', () => {
  it('produces signatures that verify, identical to in-process signing when deterministic', async () => {
    const w = await createWorkerSigner(seed, { deterministic: true });
    try {
      const local = createMldsaSigner(seed, { deterministic: true });
      expect(w.alg).toBe('ML-DSA-65');
      expect(w.publicKey).toEqual(local.publicKey);
      const sig = await w.sign(msg(1));
      expect(verifyMldsa(w.publicKey, msg(1), sig)).toBe(true);
      expect(sig).toEqual(await local.sign(msg(1)));
    } finally {
      await w.close?.();
    }
  });

  it('keeps the event loop free while 20 signatures run, and answers each request by id', async () => {
    const w = await createWorkerSigner(seed);
    try {
      let ticks = 0;
      let maxGap = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        ticks++;
      }, 2);
      const started = performance.now();
      const sigs = await Promise.all(Array.from({ length: 20 }, (_, i) => w.sign(msg(i))));
      const elapsed = performance.now() - started;
      clearInterval(timer);
      sigs.forEach((sig, i) => expect(verifyMldsa(w.publicKey, msg(i), sig)).toBe(true));
      // In-process signing would block for the whole batch: no tick at all until it ends.
      expect(ticks).toBeGreaterThanOrEqual(2); // 4 in CI at load 8 on 2 cores; in-process: 0 or 1
      expect(maxGap).toBeLessThan(Math.max(50, elapsed / 2));
    } finally {
      await w.close?.();
    }
  });

  it('rejects signing after close; close is idempotent', async () => {
    const w = await createWorkerSigner(seed);
    await w.close?.();
    await w.close?.();
    await expect(w.sign(msg(0))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('rejects pending and later signs with ERR_SIGN_FAILED when the worker crashes', async () => {
    const w = await createWorkerSigner(seed, { workerUrl: new URL('./crash-worker.mjs', import.meta.url) });
    try {
      const results = await Promise.allSettled([w.sign(msg(1)), w.sign(msg(2))]);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_SIGN_FAILED' });
      }
      await expect(w.sign(msg(3))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
    } finally {
      await w.close?.();
    }
  });

  it('with the public key given, returns at once and signs once the thread is up (lazy or not)', async () => {
    const pub = createMldsaSigner(seed).publicKey;
    for (const lazy of [false, true]) {
      const w = await createWorkerSigner(seed, { publicKey: pub, lazy });
      try {
        expect(w.publicKey).toEqual(pub);
        const sig = await w.sign(msg(7));
        expect(verifyMldsa(pub, msg(7), sig)).toBe(true);
      } finally {
        await w.close?.();
      }
    }
    // A lazy signer that never signed closes without ever starting a thread, and then refuses.
    const idle = await createWorkerSigner(seed, { publicKey: pub, lazy: true });
    await idle.close?.();
    await expect(idle.sign(msg(1))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('keeps its process alive while a lazy thread starts for the first signature (nothing else running)', () => {
    // A process whose only work is that first signature: the thread must not be unreferenced
    // while it starts, or the process ends with the signature owed (exit 13, unsettled await).
    const src = (f: string) => JSON.stringify(new URL(`../../src/crypto/${f}`, import.meta.url).href);
    const script = `
      import { createMldsaSigner } from ${src('index.ts')};
      import { createWorkerSigner } from ${src('node.ts')};
      const seed = new Uint8Array(32).fill(9);
      const w = await createWorkerSigner(seed, { publicKey: createMldsaSigner(seed).publicKey, lazy: true });
      const sig = await w.sign(new TextEncoder().encode('x'));
      console.log('signed', sig.length);
      await w.close();`;
    const file = join(mkdtempSync(join(tmpdir(), 'vouch-lazy-signer-')), 'first-sign.mts');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: new URL('../../', import.meta.url), encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('signed 3309');
  });

  it('refuses to sign when the thread derives a public key other than the one given (a swapped key file)', async () => {
    const other = createMldsaSigner(new Uint8Array(32).fill(1)).publicKey;
    const w = await createWorkerSigner(seed, { publicKey: other });
    try {
      const results = await Promise.allSettled([w.sign(msg(1)), w.sign(msg(2))]);
      for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'ERR_SIGN_FAILED' } });
      await expect(w.sign(msg(3))).rejects.toThrow(/other than the one given/);
      // `ready` says so without a signature being asked (the log thread ends on it).
      await expect(w.ready).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED', message: expect.stringMatching(/other than the one given/) });
    } finally {
      await w.close?.();
    }
    const fine = await createWorkerSigner(seed, { publicKey: createMldsaSigner(seed).publicKey });
    try {
      await expect(fine.ready).resolves.toBeUndefined();
    } finally {
      await fine.close?.();
    }
  });

  it('takes a prestarted thread: the seed comes as a message, deterministic signatures match, a wrong key is still refused', async () => {
    // The log writer thread prestarts its signer before the key files are read (store/log-thread-host.ts).
    const local = createMldsaSigner(seed, { deterministic: true });
    prestartSignWorker();
    const w = await createWorkerSigner(seed, { deterministic: true });
    try {
      expect(w.publicKey).toEqual(local.publicKey);
      const sig = await w.sign(msg(3));
      expect(sig).toEqual(await local.sign(msg(3))); // the throwaway warm-up key signed nothing here
    } finally {
      await w.close?.();
    }
    prestartSignWorker();
    const swapped = await createWorkerSigner(seed, { publicKey: createMldsaSigner(new Uint8Array(32).fill(1)).publicKey });
    try {
      await expect(swapped.sign(msg(1))).rejects.toThrow(/other than the one given/);
    } finally {
      await swapped.close?.();
    }
    // Each prestarted thread is taken once: the next signer starts its own.
    const fresh = await createWorkerSigner(seed, { deterministic: true });
    try {
      expect(await fresh.sign(msg(4))).toEqual(await local.sign(msg(4)));
    } finally {
      await fresh.close?.();
    }
  });

  it('a prestarted thread that gets anything but its seed first ends with an error, never waits silently', async () => {
    const { Worker } = await import('node:worker_threads');
    for (const first of [{ t: 'nope' }, { t: 'seed', seed: 'not bytes' }, { id: 1, message: new Uint8Array(1) }]) {
      const w = new Worker(new URL('../../src/crypto/sign-worker.mjs', import.meta.url), { workerData: { prestart: true } });
      const ended = new Promise<string>((resolve) => {
        w.once('error', (e) => resolve(`error: ${e.message}`));
        w.once('exit', (code) => resolve(`exit ${code}`));
      });
      w.postMessage(first);
      expect(await ended).toMatch(/^error: the signing thread got a message before its seed/);
    }
  });

  it('refuses a bad seed before starting a thread', async () => {
    await expect(createWorkerSigner(new Uint8Array(16))).rejects.toMatchObject({ code: 'ERR_KEY_FORMAT' });
  });
});

describe('createSignerFromSeed', () => {
  it('gives a worker signer with thread:true and an in-process one without, same key', async () => {
    const a = await createSignerFromSeed(seed, { thread: true });
    const b = await createSignerFromSeed(seed, { thread: false });
    try {
      expect(a.publicKey).toEqual(b.publicKey);
      expect(verifyMldsa(b.publicKey, msg(5), await a.sign(msg(5)))).toBe(true);
      const ed = await createSignerFromSeed(seed, { thread: true, alg: 'Ed25519' });
      expect(ed.alg).toBe('Ed25519');
    } finally {
      await a.close?.();
      await b.close?.();
    }
  });
});
