// `--archive` names a local directory. Found walking docs/keeping-logs.md: given the URL the archive
// is served from (a bucket, a CDN), `vouch log verify` read a local path `http:/…` that did not exist
// and said "clean" with nothing of the archive checked, and `vouch log archive` wrote a directory
// named `http:` in the working directory. Each is now a usage error naming the fix.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../audit/_generate.js';
import { makeLog } from '../store/_archive-log.js';

const BIN = fileURLToPath(new URL('../../bin/vouch.js', import.meta.url));
let data: string;
let cwd: string;

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'vouch-archive-option-'));
  data = await makeLog(20, 'agent', join(root, 'data'));
  cwd = join(root, 'cwd');
}, 60_000);

describe('--archive takes a directory, never a URL, and log verify never checks an archive that is not there', () => {
  for (const url of ['http://127.0.0.1:8792/vouch-archive', 'https://cdn.example/archive', 's3://vouch-archive', 'HTTPS://x/y']) {
    it(`log verify|archive|prune --archive ${url}: exit 2, says to use a tlog client; nothing written`, async () => {
      const was = process.cwd();
      mkdirSync(cwd, { recursive: true });
      process.chdir(cwd);
      try {
        for (const sub of ['verify', 'archive', 'prune']) {
          const r = await cli('log', sub, '--data', data, '--tenant', 'default', '--archive', url);
          expect(r.code, sub).toBe(2);
          expect(r.err, sub).toMatch(/--archive takes a directory, not a URL/);
          expect(r.err, sub).toMatch(/docs\/keeping-logs\.md/);
        }
        expect(readdirSync(cwd)).toEqual([]);
      } finally {
        process.chdir(was);
      }
    });
  }

  it('serve --archive URL: exit 2 before anything is opened or written', () => {
    // A child process with a deadline: a serve that took the URL would run on (and be killed).
    const r = spawnSync(process.execPath, [BIN, 'serve', '--data', data, '--port', '0', '--archive', 'http://127.0.0.1:1/a'], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--archive takes a directory, not a URL/);
  }, 40_000);

  it('log verify --archive DIR that does not exist: exit 2 naming it, not "clean" with nothing checked', async () => {
    const missing = join(data, 'no-such-archive');
    const r = await cli('log', 'verify', '--data', data, '--archive', missing);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--archive ${missing}: no such directory`);
    expect(existsSync(missing)).toBe(false);
  });

  it('still: log verify with no --archive and no archive written reads the database alone, clean', async () => {
    const r = await cli('log', 'verify', '--data', data);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/none \(every entry read from the database\)/);
    // and a directory given that exists is read
    expect((await cli('log', 'archive', '--data', data, '--archive', join(data, 'elsewhere'))).code).toBe(0);
    const ok = await cli('log', 'verify', '--data', data, '--archive', join(data, 'elsewhere'));
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/checkpoint at \d+, 0 entries read/);
  });
});
