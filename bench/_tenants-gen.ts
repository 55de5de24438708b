// Bench helper: a data directory of N tenant logs (`default` and t1..t(N-1)), each holding one real
// signed decision entry, written through the log thread as the service writes them, each log
// closed once written (file handles stay bounded). Cached under the OS temp dir by N; not timed.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWork } from './log.bench.js';
import { initDataDir, openDataDir } from '../src/store/node.js';

export async function tenantsDataDir(n: number, log: (line: string) => void = () => undefined): Promise<string> {
  const root = join(tmpdir(), 'vouch-bench-tenants-cache', `n${n}`);
  const data = join(root, 'data');
  if (existsSync(join(root, 'complete'))) return data;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  initDataDir(data);
  const dd = await openDataDir(data, { thread: true, logThread: true });
  const t0 = performance.now();
  try {
    const names = ['default', ...Array.from({ length: n - 1 }, (_, i) => `t${i + 1}`)];
    let next = 0;
    const lane = async () => {
      while (next < names.length) {
        const tenant = names[next++];
        const t = dd.log(tenant);
        await t.ready;
        const w = makeWork(next);
        await t.appender.append({ ...w.body, tenant } as typeof w.body, w.attachments);
        await dd.closeLog(tenant);
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  } finally {
    await dd.close();
  }
  log(`  tenants: ${n} tenant logs written in ${Math.round(performance.now() - t0)} ms (cached)`);
  writeFileSync(join(root, 'complete'), `${n}\n`);
  return data;
}
