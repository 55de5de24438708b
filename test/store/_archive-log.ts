// A data directory holding one log of N entries (a policy entry, then decisions with their input
// payloads, appended in waves so there are several checkpoints): what the archive tests start from.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256, toHex } from '../../src/canonical/index.js';
import type { EntryBody } from '../../src/log/index.js';
import { initDataDir, openDataDir } from '../../src/store/node.js';

const TIME = '2026-12-05T00:00:00Z';
const CHAIN = `sha256:${'c'.repeat(64)}`;
const POLICY_SET = `sha256:${'d'.repeat(64)}`;
const POLICY: EntryBody = { type: 'policy', time: TIME, chain: CHAIN, policySet: POLICY_SET, engines: {}, action: 'activate' };
export const inputDigest = (i: number) => `sha256:${toHex(sha256(Uint8Array.of(i & 0xff, i >> 8)))}`;
export const body = (i: number, who: string): EntryBody => ({
  type: 'decision',
  time: TIME,
  principal: `${who}-${i}`,
  event: 'tools/call',
  policy: { chain: CHAIN, policySet: POLICY_SET },
  decision: { effect: i % 3 === 0 ? 'deny' : 'allow', status: 'success' },
  input: { digest: inputDigest(i) },
});

/** A data directory with one log of `count` entries appended in waves (several checkpoints). */
export async function makeLog(count: number, who: string, dir: string): Promise<string> {
  initDataDir(dir);
  const dd = await openDataDir(dir, { thread: false });
  const log = dd.log('default');
  await log.appender.append(POLICY);
  for (let n = 1; n < count; ) {
    const wave = Math.min(count - n, 97);
    await Promise.all(Array.from({ length: wave }, (_, k) => log.appender.append(body(n + k, who), [{ digest: inputDigest(n + k), bytes: Uint8Array.of((n + k) & 0xff, (n + k) >> 8) }])));
    n += wave;
  }
  await dd.close();
  return dir;
}

/** Temporary directories for one test file, and copies of a log made in one; `removeAll` in afterAll. */
export function scratchDirs(prefix: string): { tempDir: (p: string) => string; copyOf: (dir: string) => string; removeAll: () => void } {
  const temps: string[] = [];
  const tempDir = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    temps.push(d);
    return d;
  };
  const copyOf = (dir: string) => {
    const c = tempDir(`${prefix}copy-`);
    cpSync(dir, c, { recursive: true });
    return c;
  };
  return { tempDir, copyOf, removeAll: () => temps.forEach((d) => rmSync(d, { recursive: true, force: true })) };
}
