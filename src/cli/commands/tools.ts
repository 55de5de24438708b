// vouch tools approve | list: pinned tool definitions of a gateway's data directory (mcp/tool-pins.ts).
// Approval is a signed `pin` entry in the log: the next gateway start shows the tool again.
import { isDigest } from '../../canonical/index.js';
import { readPins, ToolPins } from '../../mcp/tool-pins.js';
import { parse, unknownCommand } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openLogForWriting, openVerifiedReadOnly, TENANT_OPTION } from './_audit-open.js';
import { cliUser } from './_cli-user.js';

export const help = `vouch tools approve SERVER TOOL DIGEST [--data DIR] [--tenant T] [--json]
vouch tools list [--data DIR] [--tenant T] [--json]

approve  approves DIGEST (sha256:...) as the definition of TOOL on upstream SERVER: appends a
         signed \`pin\` entry (action approved, by cli:<user>). The gateway hides a tool whose
         definition no longer matches its pin and denies its calls; the deny names the old and
         new digest. The data directory must not be in use (the log is locked; exit 4): stop the
         gateway, approve, start it again.
list     every pinned tool: server/tool, the pinned digest, a changed definition awaiting
         approval, and the seq of the newest pin entry. Read-only: works while the gateway runs.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'approve') return approve(rest, io);
  if (sub === 'list') return list(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  throw unknownCommand('tools command', sub, ['approve', 'list']);
}

async function approve(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, TENANT_OPTION, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 3) throw new UsageError('tools approve takes SERVER TOOL DIGEST');
  const [server, tool, digest] = positionals;
  if (!isDigest(digest)) throw new UsageError(`DIGEST must be sha256:<64 hex>, got ${JSON.stringify(digest)}`);
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    const pins = new ToolPins(server, log.appender, readPins(log.store), () => new Date().toISOString());
    const before = pins.get(tool);
    const seq = await pins.approve(tool, digest, cliUser());
    const out = { server, tool, digest, seq, previous: before?.pinned ?? null, pending: before?.pending ?? null };
    if (values.json) io.out(JSON.stringify(out));
    else {
      io.out(`approved ${server}/${tool} ${digest} (pin entry #${seq})`);
      if (before?.pending !== undefined && before.pending !== digest) io.err(`note: the definition seen last is ${before.pending}, not the one approved`);
      if (!before) io.err(`note: ${server}/${tool} had no pin yet: this approval pins it ahead of first sight`);
    }
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}

function list(argv: string[], io: Io): number {
  const { values } = parse(argv, TENANT_OPTION);
  if (values.help) return io.out(help), EXIT.ok;
  const store = openVerifiedReadOnly(values.data!, values.tenant!, values['key-name']!);
  try {
    const rows = [...readPins(store)].map(([key, p]) => ({ tool: key, pinned: p.pinned, pending: p.pending ?? null, seq: p.seq }));
    if (values.json) io.out(JSON.stringify(rows));
    else if (!rows.length) io.out('no tool pinned yet');
    else for (const r of rows) io.out(`${r.tool}  ${r.pinned}${r.pending ? `  CHANGED -> ${r.pending} (hidden until approved)` : ''}  #${r.seq}`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}
