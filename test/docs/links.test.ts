// Every relative link in README.md and docs/*.md resolves: to a file in the repository and, with
// a #fragment, to a heading of that file (GitHub's anchor rules). Pages move; links must not rot.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(md: string): string {
  return md.replace(/^ *(```|~~~)[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers (repeated headings get -1, -2, as on GitHub). */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const noFences = md.replace(/^ *(```|~~~)[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, '');
  for (const m of noFences.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The broken relative links of one Markdown file (path relative to ROOT), each with why. */
export function brokenLinks(file: string, md = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const broken: string[] = [];
  for (const m of prose(md).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const href = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: ... : not a file here
    const [path, fragment] = href.split('#', 2) as [string, string | undefined];
    const target = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
    if (!target.startsWith(ROOT)) { broken.push(`${href}: outside the repository`); continue; }
    if (!existsSync(target)) { broken.push(`${href}: no file ${relative(ROOT, target)}`); continue; }
    if (fragment === undefined) continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) { broken.push(`${href}: an anchor into a file that is not Markdown`); continue; }
    const text = path === '' ? md : readFileSync(target, 'utf8');
    if (!anchors(text).has(fragment)) broken.push(`${href}: no heading #${fragment} in ${relative(ROOT, target)}`);
  }
  return broken;
}

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

describe('links in README.md and docs/*.md', () => {
  it('the checker finds a missing file, a missing heading and a link out of the repository, and passes good ones', () => {
    const md = '# Top\n\n## Keys, witnesses and `tiles`\n\n[a](docs/nope.md) [b](#keys-witnesses-and-tiles) [c](#gone) [d](../../etc/passwd) [e](https://x.example/#y)\n\n```sh\n[f](in-code.md)\n```\n';
    expect(brokenLinks('README.md', md)).toEqual([
      'docs/nope.md: no file docs/nope.md',
      '#gone: no heading #gone in README.md',
      '../../etc/passwd: outside the repository',
    ]);
    expect(slug("What a local attacker can still do, and what closes it")).toBe('what-a-local-attacker-can-still-do-and-what-closes-it');
    expect(slug('MCP 2026-07-28 servers behind `vouch gateway`')).toBe('mcp-2026-07-28-servers-behind-vouch-gateway');
  });

  for (const page of pages) {
    it(`${page}: every relative link resolves`, () => {
      expect(brokenLinks(page)).toEqual([]);
    });
  }
});
