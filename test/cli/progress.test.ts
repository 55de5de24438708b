// Long CLI work shows progress on a terminal and stays quiet otherwise: export, verify and replay
// of a 10,000-entry log, with stderr a TTY (injected in-process, and a real pseudo-terminal via
// `script`), not a TTY (a pipe), and with --json.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { run as exportRun } from '../../src/cli/commands/export.js';
import { verifyBundleCommand } from '../../src/cli/commands/verify-bundle.js';
import { main } from '../../src/cli/main.js';
import { counted, createProgress, type ProgressStream } from '../../src/cli/progress.js';
import { captureIo, generateLog } from '../audit/_generate.js';

const BIN = fileURLToPath(new URL('../../bin/vouch.js', import.meta.url));
const N = 10_000;
let data: string;
let work: string;
let bundle: string;

const tty = () => {
  const writes: string[] = [];
  const stream: ProgressStream & { writes: string[] } = { isTTY: true, writes, write: (t: string) => writes.push(t) };
  return stream;
};

beforeAll(async () => {
  const g = await generateLog(N, { concurrency: 256 });
  await g.close();
  data = g.dir;
  work = mkdtempSync(join(tmpdir(), 'vouch-cli-progress-'));
  bundle = join(work, 'bundle');
  const c = captureIo();
  expect(await main(['export', '--data', data, '--payloads', '-o', bundle], c.io)).toBe(0);
}, 600_000);

describe('createProgress', () => {
  it('draws one line in place on a TTY, throttled, with count and percent, and clears it', async () => {
    let t = 0;
    const s = tty();
    const p = createProgress('vouch x', { stream: s, now: () => t });
    p.stage('checking', 3);
    p.tick(); // within the interval: no redraw
    t += 150;
    p.tick();
    p.tick(); // the last one always draws
    p.done();
    expect(s.writes).toEqual(['\r\x1b[Kvouch x: checking 0/3 (0%)', '\r\x1b[Kvouch x: checking 2/3 (66%)', '\r\x1b[Kvouch x: checking 3/3 (100%)', '\r\x1b[K']);
  });

  it('writes nothing to a pipe or with --json', async () => {
    const pipe = { ...tty(), isTTY: false };
    pipe.write = (t: string) => pipe.writes.push(t);
    for (const [stream, json] of [[pipe, false], [tty(), true]] as const) {
      const p = createProgress('vouch x', { stream, json });
      p.stage('a', 2);
      for await (const _ of counted((async function* () { yield 1; yield 2; })(), p));
      p.done();
      expect(stream.writes).toEqual([]);
    }
  });
});

describe(`${N.toLocaleString('en-US')} entries, in-process with a TTY injected`, () => {
  it('vouch export counts the entries it scans and writes, then clears the line', async () => {
    const s = tty();
    const c = captureIo();
    expect(await exportRun(['--data', data, '-o', join(work, 'b2.tar.gz')], c.io, s)).toBe(0);
    const text = s.writes.join('');
    expect(text).toContain('vouch export: scanning entries');
    expect(text).toContain(`vouch export: writing entries ${(N + 1).toLocaleString('en-US')}/${(N + 1).toLocaleString('en-US')} (100%)`);
    expect(s.writes.at(-1)).toBe('\r\x1b[K');
    expect(c.text()).not.toContain('\r'); // stdout is the result only
  }, 300_000);

  it('vouch verify counts the entries against the manifest; --json keeps it quiet', async () => {
    const s = tty();
    const c = captureIo();
    expect(await verifyBundleCommand([bundle, '--trust-bundle-keys'], c.io, s)).toBe(0);
    expect(s.writes.join('')).toContain(`vouch verify: verifying entries ${(N + 1).toLocaleString('en-US')}/${(N + 1).toLocaleString('en-US')} (100%)`);
    const quiet = tty();
    const j = captureIo();
    expect(await verifyBundleCommand([bundle, '--trust-bundle-keys', '--json'], j.io, quiet)).toBe(0);
    expect(quiet.writes).toEqual([]);
    expect(JSON.parse(j.text()).ok).toBe(true);
  }, 300_000);
});

describe('real processes: a pseudo-terminal (script) shows it, a pipe does not', () => {
  const sh = (cmd: string) => spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 300_000 });
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

  it('vouch replay on a terminal: progress on stderr; with --json: none', () => {
    const onTty = sh(`${q(process.execPath)} ${q(BIN)} replay --data ${q(data)} 2>&1 >/dev/null`);
    expect(onTty.status).toBe(0);
    expect(onTty.stdout).toMatch(/vouch replay: replaying entries [\d,]+/);
    const json = sh(`${q(process.execPath)} ${q(BIN)} replay --data ${q(data)} --json 2>&1 >/dev/null`);
    expect(json.stdout).not.toContain('vouch replay:');
  }, 300_000);

  it('vouch verify with stderr a pipe: no progress, even when stdout is a terminal', () => {
    const piped = sh(`${q(process.execPath)} ${q(BIN)} verify ${q(bundle)} --trust-bundle-keys 2>&1 | cat`);
    expect(piped.stdout).toContain('verify bundle: self-consistent');
    expect(piped.stdout).not.toContain('verifying entries');
    const onTty = sh(`${q(process.execPath)} ${q(BIN)} verify ${q(bundle)} --trust-bundle-keys`);
    expect(onTty.stdout).toContain('vouch verify: verifying entries');
    expect(onTty.stdout).toContain('\r\x1b[K');
  }, 300_000);
});
