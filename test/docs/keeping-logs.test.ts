// docs/keeping-logs.md stays runnable: every `vouch <command> [<sub>] --flag` it names (in its code
// blocks and inline code, outputs and comments aside) is a command the CLI has, and each flag is in
// that command's usage lines (`vouch <command> --help`). A renamed flag or command fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../audit/_generate.js';

const PAGE = readFileSync(new URL('../../docs/keeping-logs.md', import.meta.url), 'utf8');
/** Commands whose second word is a subcommand. */
const NESTED = new Set(['log', 'payload', 'keys', 'policy', 'tools']);

export interface DocCommand {
  line: string;
  command: string;
  sub?: string;
  flags: string[];
}

/** Every vouch invocation in a page's code: fenced blocks and inline code, `#` comments (outputs) dropped. */
export function docCommands(md: string): DocCommand[] {
  const code: string[] = [];
  for (const m of md.matchAll(/^ *```[^\n]*\n([\s\S]*?)^ *```/gm)) code.push(...m[1].split('\n'));
  const prose = md.replace(/^ *```[^\n]*\n[\s\S]*?^ *```[^\n]*$/gm, '');
  for (const m of prose.matchAll(/`([^`]+?)`/g)) if (!m[1].includes('\n\n')) code.push(m[1].replace(/\n/g, ' ')); // may wrap a line
  const out: DocCommand[] = [];
  for (const raw of code) {
    const line = raw.replace(/(^|\s)#.*$/, ''); // a comment: what the command printed
    for (const m of line.matchAll(/(?:^|[\s(;&|])vouch\s+([a-z][a-z-]*)((?:\s+[^\s|;&>)]+)*)/g)) {
      const words = m[2].trim().split(/\s+/).filter(Boolean);
      const sub = NESTED.has(m[1]) && words[0] && /^[a-z]+$/.test(words[0]) ? words[0] : undefined;
      out.push({ line: raw.trim(), command: m[1], sub, flags: words.filter((w) => /^--[a-z]/.test(w)).map((w) => w.replace(/=.*$/, '')) });
    }
  }
  return out;
}

async function helpOf(command: string): Promise<{ code: number; text: string }> {
  const c = captureIo();
  const code = await main([command, '--help'], c.io);
  return { code, text: c.text() + c.errText() };
}

/** What is wrong with one documented invocation, against the CLI's own help. */
export async function problemsOf(cmd: DocCommand): Promise<string[]> {
  const help = await helpOf(cmd.command);
  if (help.code !== 0) return [`\`vouch ${cmd.command}\` is not a command (${cmd.line})`];
  const usage = help.text.split('\n').filter((l) => l.startsWith(`vouch ${cmd.command}${cmd.sub ? ` ${cmd.sub}` : ''}`) && (!cmd.sub || /[\s|]/.test(l.charAt(`vouch ${cmd.command} ${cmd.sub}`.length) || ' ')));
  if (usage.length === 0) return [`\`vouch ${cmd.command}${cmd.sub ? ` ${cmd.sub}` : ''}\` has no usage line in its help (${cmd.line})`];
  const problems: string[] = [];
  for (const flag of cmd.flags) {
    if (!usage.some((l) => new RegExp(`${flag}(?![a-z-])`).test(l))) problems.push(`\`vouch ${cmd.command}${cmd.sub ? ` ${cmd.sub}` : ''}\` has no ${flag} (${cmd.line})`);
  }
  return problems;
}

describe('docs/keeping-logs.md: every vouch command and flag it names exists', () => {
  const commands = docCommands(PAGE);

  it('names the runbook\'s commands (the check below is not vacuous)', () => {
    const names = new Set(commands.map((c) => `${c.command}${c.sub ? ` ${c.sub}` : ''}`));
    for (const n of ['serve', 'log verify', 'log prune', 'payload expire', 'keys export', 'verify', 'receipt', 'replay']) expect(names, n).toContain(n);
    expect(commands.flatMap((c) => c.flags).length).toBeGreaterThan(20);
  });

  it('each is in the CLI, each flag in that command\'s usage lines', async () => {
    const problems: string[] = [];
    for (const c of commands) problems.push(...(await problemsOf(c)));
    expect(problems).toEqual([]);
  }, 60_000);

  it('the check catches a flag or a subcommand the CLI does not have', async () => {
    const bad = docCommands('```sh\nnpx vouch log prune --tenant t --data d --no-such-flag\nnpx vouch log shrink --data d\nvouch serve --archive-url x   # vouch serve --ignored-in-comment\n```\nand `vouch payload expire --older-than 1 --days 2`\n');
    const found = (await Promise.all(bad.map(problemsOf))).flat();
    expect(found).toEqual([
      expect.stringMatching(/^`vouch log prune` has no --no-such-flag/),
      expect.stringMatching(/^`vouch log shrink` has no usage line/),
      expect.stringMatching(/^`vouch serve` has no --archive-url/),
      expect.stringMatching(/^`vouch payload expire` has no --days/),
    ]);
  });
});
