// vouch CLI: one dispatch table, one error-to-exit-code mapping (cli/io.ts).
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
  tools: () => import('./commands/tools.js'),
  witness: () => import('./commands/witness.js'),
};

const SUMMARY: [string, string][] = [
  ['serve', 'run the enforcement service (MCP interceptor endpoint + REST API)'],
  ['gateway', 'stand between an MCP client and an MCP server: one policy, every message signed'],
  ['init', 'create keys, the data directory and an example config'],
  ['log verify|tail', 'check every entry, node, checkpoint and signature; show the newest entries'],
  ['replay', 're-run stored decisions and compare byte for byte; --policy FILE: what-if with reasons (--fail-on-change, --report)'],
  ['export -o PATH', 'write an audit bundle (directory or .tar.gz) of a range of the log'],
  ['verify BUNDLE', 'check an audit bundle offline: signatures, leaves, links, root, replay'],
  ['policy activate FILE', 'store and pin a new chain config (stopped data dir; POST /v1/policy live)'],
  ['policy history', 'every activation of the policy, from the log (status: the one in force)'],
  ['tools approve SERVER TOOL DIGEST', 'approve a changed tool definition the gateway hides (pins live in the log)'],
  ['keys rotate|revoke|list', 'new keys as a signed log entry; refuse a retired key after a size; the key history'],
  ['payload erase DIGEST', 'erase a payload, record the erasure; proofs stay valid'],
  ['verify RECEIPT', 'check a receipt offline against a trusted key (and a newer checkpoint, a caller key)'],
  ['witness --log O=VKEYS', 'run a transparency-log witness (c2sp.org/tlog-witness): cosign checkpoints that extend the last one'],
];

export const usage = () => `vouch: signed, replayable evidence for what AI agents do over MCP

usage: vouch <command> [options]     (vouch <command> --help for its options)

${SUMMARY.map(([c, d]) => `  ${c.padEnd(18)} ${d}`).join('\n')}

Every command takes --data DIR (default ./.vouch) and --json for a machine-readable report.
Exit codes: 0 ok, 1 verification findings, 2 usage, 3 bad input or config, 4 store or key problem, 5 internal.`;

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(usage());
    return cmd === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = COMMANDS[cmd];
  if (!load) {
    io.err(`vouch: unknown command ${JSON.stringify(cmd)}\n\n${usage()}`);
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
