// Issue 37 item 6: the README's first session wrote its files (the answer, the receipt, the keys,
// the bundle, the what-if candidate) into the repository root, where git shows them as new files to
// commit. Every path the first session writes, read from the README's own block, must be ignored by
// the repository's .gitignore, and so must everything `npm ci && npm start` creates.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './_serve.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The shell block under "## A first session, end to end". */
function firstSessionBlock(): string {
  const at = README.indexOf('## A first session, end to end');
  expect(at, 'the README has a first session').toBeGreaterThan(0);
  const m = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  return m![1];
}

/** Every path the block writes: shell redirections, curl -o, writeFileSync in node -e, and --policy candidates. */
function writtenPaths(block: string): string[] {
  const paths = new Set<string>();
  for (const m of block.matchAll(/(?:^|\s)>\s*(\S+)/gm)) paths.add(m[1]);
  for (const m of block.matchAll(/\s-o\s+(\S+)/g)) paths.add(m[1]);
  for (const m of block.matchAll(/writeFileSync\(\s*["']([^"']+)["']/g)) paths.add(m[1]);
  for (const m of block.matchAll(/--policy\s+(\S+)/g)) paths.add(m[1]);
  return [...paths].filter((p) => !p.startsWith('/dev/'));
}

/** Whether git ignores `path` (relative to the repository root; it need not exist). */
function ignored(path: string): boolean {
  return spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT }).status === 0;
}

describe('the first session leaves the repository clean', () => {
  it('every file the README\'s first session writes is git-ignored', () => {
    const paths = writtenPaths(firstSessionBlock());
    // The block writes at least the answer, the receipt, the keys, the bundle and the candidate policy.
    expect(paths.length).toBeGreaterThanOrEqual(5);
    expect(paths.filter((p) => !ignored(p))).toEqual([]);
  });

  it('what `npm ci && npm start` creates is git-ignored: node_modules (a folder, or a link to one), dist/, web/dist/, .vouch/', () => {
    execFileSync('git', ['rev-parse', '--git-dir'], { cwd: ROOT });
    for (const p of ['node_modules', 'dist/cli/main.js', 'dist/.bundle/vouch.mjs', 'web/dist/index.html', '.vouch/vouch.yaml', '.vouch/logs/default.db', '.vouch/keys/mldsa65.key']) {
      expect(ignored(p), p).toBe(true);
    }
  });
});
