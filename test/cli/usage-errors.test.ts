// Issue 37: the command line's own words. A mistyped flag gets "did you mean" the nearest known
// one and the list of known flags, never Node's parseArgs text; a missing value, a value given to a
// switch and a stray argument are said in vouch's words; `vouch --help` lists every command in one
// aligned column; `vouch --version` / `-V` print the package's version; a key file given as the
// receipt is named as such.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, usage } from '../../src/cli/main.js';
import { captureIo } from '../audit/_generate.js';
import { ROOT } from './_serve.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// Phrases of node:util parseArgs' messages: none may reach the user.
const NODE_TEXT = /Unknown option '|argument missing|argument is ambiguous|does not take an argument|Unexpected argument '|To specify a positional|<value>/;

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

describe('flag mistakes, in vouch\'s words', () => {
  it('--jsn: did you mean --json, and the known flags; no parseArgs text', async () => {
    const r = await cli('log', 'verify', '--jsn');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^vouch log: unknown option --jsn: did you mean --json\? \(options: .*--data.*--json.*--tenant/);
    expect(r.err).not.toMatch(NODE_TEXT);
  });

  it('serve --prot 1: did you mean --port; an option nothing is near: the list only', async () => {
    const r = await cli('serve', '--prot', '1');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option --prot: did you mean --port\?/);
    const far = await cli('serve', '--zzzzzzzz');
    expect(far.err).toMatch(/unknown option --zzzzzzzz \(options: /);
    expect(far.err).not.toMatch(/did you mean/);
    const short = await cli('export', '-x');
    expect(short.err).toMatch(/unknown option -x/);
    for (const e of [r.err, far.err, short.err]) expect(e).not.toMatch(NODE_TEXT);
  });

  it('a value missing, a value for a switch, a stray argument, a flag where a value goes', async () => {
    const cases: [string[], RegExp][] = [
      [['log', 'tail', '-n'], /-n needs a value/],
      [['log', 'tail', '--n'], /-n needs a value/],
      [['serve', '--port'], /--port needs a value/],
      [['log', 'verify', '--json=yes'], /--json takes no value/],
      [['log', 'verify', 'extra'], /unexpected argument "extra"/],
      [['serve', '--port', '--json'], /--port needs a value, not the option --json/],
    ];
    for (const [argv, re] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(re);
      expect(r.err, argv.join(' ')).not.toMatch(NODE_TEXT);
    }
    // --n is -n's long spelling: it works where -n does.
    const dir = mkdtempSync(join(tmpdir(), 'vouch-usage-'));
    expect((await cli('log', 'tail', '--n', '3', '--data', dir)).code).toBe(0);
  });
});

describe('a mistyped command', () => {
  it('vouch verfy, vouch tools lst: did you mean, and the known ones', async () => {
    const top = await cli('verfy', 'x');
    expect(top.code).toBe(2);
    expect(top.err).toMatch(/^vouch: unknown command "verfy": did you mean verify\? \(commands: /);
    const sub = await cli('tools', 'lst');
    expect(sub.code).toBe(2);
    expect(sub.err).toMatch(/unknown tools command "lst": did you mean list\? \(tools commands: approve, list\)/);
  });
});

describe('vouch --help and --version', () => {
  it('lists every command, tools list included, descriptions in one column', () => {
    const text = usage();
    for (const cmd of ['serve', 'gateway', 'init', 'log verify|tail', 'replay', 'export', 'verify BUNDLE', 'verify RECEIPT', 'policy activate FILE', 'policy history', 'tools approve', 'tools list', 'keys rotate|revoke|list', 'payload erase', 'witness']) {
      expect(text, cmd).toContain(`  ${cmd}`);
    }
    const rows = text.split('\n').filter((l) => /^ {2}\S.*? {2,}\S/.test(l));
    expect(rows.length).toBeGreaterThan(12);
    const columns = new Set(rows.map((l) => /^ {2}\S.*? {2,}(?=\S)/.exec(l)![0].length));
    expect(columns.size, rows.join('\n')).toBe(1);
    for (const l of text.split('\n')) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it('--version and -V print the package version (in process, and as the installed binary)', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`vouch ${VERSION}`);
    }
    const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, ['bin/vouch.js', '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))));
    expect(out.trim()).toBe(`vouch ${VERSION}`);
    expect(usage()).toMatch(/--version/);
  }, 180_000);
});

describe('a key file given as the receipt', () => {
  it('a JWKS: "this is a key file (JWKS): pass it with --key", exit 3; a vkey file and a checkpoint note too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-usage-'));
    const jwks = join(dir, 'keys.json');
    writeFileSync(jwks, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', kid: 'k' }] }));
    const r = await cli('verify', jwks, '--key', jwks);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/this is a key file \(JWKS\): pass it with --key/);
    const vkey = join(dir, 'keys.vkey');
    writeFileSync(vkey, 'vouch.local+12345678+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=\n');
    expect((await cli('verify', vkey, '--key', jwks)).err).toMatch(/this is a key file \(vkeys\): pass it with --key/);
    const note = join(dir, 'cp.note');
    writeFileSync(note, 'vouch.local/default\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u2014 vouch.local/default AAAA\n');
    expect((await cli('verify', note, '--key', jwks)).err).toMatch(/this is a checkpoint: pass it with --checkpoint/);
    // And the other way round: a receipt given as the key file.
    const receipt = join(dir, 'receipt.json');
    writeFileSync(receipt, JSON.stringify({ v: 1, index: 0, entry: 'e30=', leafHash: '00'.repeat(32), proof: [], checkpoint: 'x\n' }));
    const swapped = await cli('verify', receipt, '--key', receipt);
    expect(swapped.code).toBe(3);
    expect(swapped.err).toMatch(/this is a receipt, not a key file/);
  });
});
