// vouch CLI: one dispatch table, one error-to-exit-code mapping (cli/io.ts).
import { readFileSync } from 'node:fs';
import { unknownCommand } from './suggest.js';
import { describeError, EXIT, exitCodeFor, processIo, UsageError, type Io } from './io.js';

type Command = { help: string; run(argv: string[], io: Io): Promise<number> };

const COMMANDS: Record<string, () => Promise<Command>> = {
  gateway: () => import('./commands/gateway.js'),
  init: () => import('./commands/init.js'),
  keys: () => import('./commands/keys.js'),
  log: () => import('./commands/log.js'),
  serve: () => import('./commands/serve.js'),
  replay: () => import('./commands/replay.js'),
  export: () => import('./commands/export.js'),
  policy: () => import('./commands/policy.js'),
  payload: () => import('./commands/payload.js'),
  'verify-bundle': () => import('./commands/verify-bundle.js'),
  verify: () => import('./commands/verify.js'),
  receipt: () => import('./commands/receipt.js'),
  tools: () => import('./commands/tools.js'),
  witness: () => import('./commands/witness.js'),
};

const SUMMARY: [string, string][] = [
  ['serve', 'run the enforcement service (MCP interceptor endpoint + REST API)'],
  ['gateway', 'stand between an MCP client and server: one policy, every message signed'],
  ['init', 'create keys, the data directory and an example config'],
  ['log verify|tail', 'check every entry, node, checkpoint, signature; show the newest entries'],
  ['replay', 're-run stored decisions, compare byte for byte; --policy FILE: what-if'],
  ['export -o PATH', 'write an audit bundle (directory or .tar.gz) of a range of the log'],
  ['verify BUNDLE', 'check an audit bundle offline: signatures, leaves, links, root, replay'],
  ['verify RECEIPT', 'check a receipt offline: a trusted key (a newer checkpoint, a caller key)'],
  ['receipt SEQ', 'print the receipt of one entry (read-only: a running gateway may hold the log)'],
  ['policy activate FILE', 'store and pin a new chain config (stopped data dir; POST /v1/policy live)'],
  ['policy history', 'every activation of the policy, from the log (status: the one in force)'],
  ['tools list', 'pinned tool definitions, and changed ones awaiting approval (read-only)'],
  ['tools approve SERVER TOOL DIGEST', 'approve a changed tool definition the gateway hides (a signed pin entry)'],
  ['keys rotate|revoke|list', 'new keys by a signed entry; refuse a retired key after a size; history'],
  ['keys export', 'the public keys as a JWKS, vkey lines or keys.json (while the service runs)'],
  ['payload erase DIGEST', 'erase a payload, record the erasure; proofs stay valid'],
  ['witness --log O=VKEYS', 'run a c2sp.org/tlog-witness: cosign checkpoints that extend the last one'],
];

const WIDTH = 100;

/** One row per command: the names in one column, descriptions beside them, wrapped under themselves. */
function rows(summary: [string, string][]): string[] {
  const names = Math.max(...summary.filter(([c]) => c.length <= 24).map(([c]) => c.length));
  const indent = 2 + names + 2;
  const out: string[] = [];
  for (const [c, d] of summary) {
    // A name longer than the column gets a line of its own; its description starts under the column.
    const first = c.length <= names ? `  ${c.padEnd(names)}  ` : undefined;
    if (!first) out.push(`  ${c}`);
    let line = first ?? ' '.repeat(indent);
    for (const word of d.split(' ')) {
      if (line.length > indent && line.length + 1 + word.length > WIDTH) {
        out.push(line);
        line = ' '.repeat(indent);
      }
      line += (line.length > indent ? ' ' : '') + word;
    }
    out.push(line);
  }
  return out;
}

export const usage = () => `vouch: signed, replayable evidence for what AI agents do over MCP

usage: vouch <command> [options]     (vouch <command> --help for its options)

${rows(SUMMARY).join('\n')}

Every command takes --data DIR (default ./.vouch) and --json for a machine-readable report.
vouch --version (-V) prints the version.
Exit codes: 0 ok, 1 verification findings, 2 usage, 3 bad input or config, 4 store or key problem,
5 internal.`;

/** The version of the package this file was installed with (src/ and dist/ both sit two levels under it). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(usage());
    return cmd === undefined ? EXIT.usage : EXIT.ok;
  }
  if (cmd === '--version' || cmd === '-V' || cmd === 'version') return io.out(`vouch ${packageVersion()}`), EXIT.ok;
  const load = COMMANDS[cmd];
  if (!load) {
    io.err(`vouch: ${unknownCommand('command', cmd, Object.keys(COMMANDS).filter((c) => c !== 'verify-bundle')).message}\n\n${usage()}`);
    return EXIT.usage;
  }
  try {
    const command = await load();
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`vouch ${cmd}: ${e.message} (see vouch ${cmd} --help)`);
      return EXIT.usage;
    }
    io.err(`vouch ${cmd}: ${describeError(e)}`);
    return exitCodeFor(e);
  }
}
