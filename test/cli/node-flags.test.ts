// The server's V8 flags (the young generation's size, bin/vouch.js) are set where node starts,
// since V8 sizes its heap then: in the bin's `env -S` line (vouch as installed), in `npm start`
// and in `npm run bench` (the bench hosts the server in its own process). One changed without the
// others would make the bench measure a server nobody runs; this holds the three equal, and runs
// the bin through its own first line to show the line works here.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/vouch.js', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };

/** The flags before the script in `node <flags> <script> ...`, but the module loader. */
function flagsOf(command: string): string[] {
  const words = command.split(/\s+/);
  expect(words[0]).toBe('node');
  const out: string[] = [];
  for (let i = 1; i < words.length && words[i].startsWith('--'); i++) {
    if (words[i] === '--import') i++;
    else out.push(words[i]);
  }
  return out;
}

describe('node flags', () => {
  const shebang = readFileSync(BIN, 'utf8').split('\n', 1)[0];
  it('the bin, npm start and npm run bench start node with the same V8 flags', () => {
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    const bin = flagsOf(shebang.slice('#!/usr/bin/env -S '.length));
    expect(bin).toContain('--max-semi-space-size=32');
    expect(flagsOf(pkg.scripts.start)).toEqual(bin);
    expect(flagsOf(pkg.scripts.bench)).toEqual(bin);
  });

  it('the bin runs through its own first line (env -S) and answers --help', () => {
    const out = execFileSync(BIN.pathname, ['--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(out).toContain('usage: vouch <command>');
  });
});
