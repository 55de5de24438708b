// vouch CLI: one dispatch table, one error-to-exit-code mapping (cli/io.ts).
import { describeError, EXIT, exitCodeFor, processIo, UsageError, type Io } from './io.js';

type Command = { help: string; run(argv: string[], io: Io): Promise<number> };

const COMMANDS: Record<string, () => Promise<Command>> = {
  init: () => import('./commands/init.js'),
  log: () => import('./commands/log.js'),
  serve: () => import('./commands/serve.js'),
  verify: () => import('./commands/verify.js'),
};

const SUMMARY: [string, string][] = [
  ['serve', 'run the enforcement service (MCP interceptor endpoint + REST API)'],
  ['init', 'create keys, the data directory and an example config'],
  ['log verify|tail', 'check every entry, node, checkpoint and signature; show the newest entries'],
  ['verify RECEIPT', 'check a receipt offline against a trusted key (and a newer checkpoint, a caller key)'],
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
