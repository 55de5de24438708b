// The writer lock of a tenant log: one holder, stale locks of dead processes taken over.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLogLock, lockPath } from '../../src/store/lock.js';
import { initDataDir, openDataDir } from '../../src/store/node.js';

const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'vouch-lock-'));
  mkdirSync(join(d, 'logs'));
  return d;
};

describe('log lock', () => {
  it('has one holder at a time and is released', () => {
    const d = fresh();
    const a = acquireLogLock(d, 't1');
    expect(readFileSync(lockPath(d, 't1'), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => acquireLogLock(d, 't1')).toThrow(expect.objectContaining({ code: 'ERR_STORE', message: expect.stringContaining('in use by this process') }));
    const b = acquireLogLock(d, 't2'); // another tenant, another lock
    a.release();
    expect(existsSync(lockPath(d, 't1'))).toBe(false);
    acquireLogLock(d, 't1').release();
    b.release();
  });

  it('names a live holder that is another process', () => {
    const d = fresh();
    writeFileSync(lockPath(d, 't'), `${process.ppid}\n`);
    expect(() => acquireLogLock(d, 't')).toThrow(expect.objectContaining({ message: expect.stringContaining(`process ${process.ppid}`) }));
  });

  it('with waitMs, waits for a live holder that is letting go (a gateway the SDK probed, still shutting down)', async () => {
    const d = fresh();
    const path = lockPath(d, 't');
    // Another process holds the lock for 400 ms, then removes it as its release does.
    const holder = spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(path)}, process.pid + '\\n'); setTimeout(() => require('fs').unlinkSync(${JSON.stringify(path)}), 400); setTimeout(() => {}, 1500)`], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 200 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 10));
      expect(() => acquireLogLock(d, 't')).toThrow(expect.objectContaining({ code: 'ERR_STORE' })); // no wait: refused at once
      const l = acquireLogLock(d, 't', 10_000);
      expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
      l.release();
    } finally {
      holder.kill();
    }
  });

  it('with waitMs, still refuses a holder that keeps it, naming it, once the wait is over', () => {
    const d = fresh();
    writeFileSync(lockPath(d, 't'), `${process.ppid}\n`);
    const t0 = Date.now();
    expect(() => acquireLogLock(d, 't', 300)).toThrow(expect.objectContaining({ message: expect.stringContaining(`process ${process.ppid}`) }));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('takes over the lock of a dead process, and an unreadable one', () => {
    const d = fresh();
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    writeFileSync(lockPath(d, 't'), `${dead}\n`);
    const l = acquireLogLock(d, 't');
    expect(readFileSync(lockPath(d, 't'), 'utf8')).toBe(`${process.pid}\n`);
    l.release();
    writeFileSync(lockPath(d, 't'), 'garbage');
    acquireLogLock(d, 't').release();
  });

  it('is taken by a data directory opening a log, and given back on close', async () => {
    const d = mkdtempSync(join(tmpdir(), 'vouch-lock-dd-'));
    initDataDir(d);
    const first = await openDataDir(d, { thread: false });
    first.log('default');
    const second = await openDataDir(d, { thread: false });
    try {
      expect(() => second.log('default')).toThrow(expect.objectContaining({ code: 'ERR_STORE' }));
      second.log('other'); // other tenants are free
    } finally {
      await first.close();
    }
    second.log('default');
    await second.close();
    expect(existsSync(lockPath(d, 'default'))).toBe(false);
  });
});
