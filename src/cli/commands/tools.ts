// vouch tools approve | list: pinned tool definitions of a gateway's data directory (mcp/tool-pins.ts).
// Approval is a signed `pin` entry in the log: the next gateway start shows the tool again.
import { digestBytes, isDigest, parseJson, utf8, type Digest } from '../../canonical/index.js';
import type { Json } from '../../interceptors/types.js';
import { diffDefinitions, formatDefinitionChanges, type DefinitionChange } from '../../mcp/tool-pin-diff.js';
import { readPins, ToolPins } from '../../mcp/tool-pins.js';
import type { LogStore } from '../../store/port.js';
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
         approval, and the seq of the newest pin entry; for a changed one, the pinned and the new
         definition side by side (each difference with its value before and after, characters a
         terminal would hide shown escaped) and the command that approves it. Definitions come from
         the pin entries' payloads; pins written before vouch kept them show their digests only.
         Read-only: works while the gateway runs.`;

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

/** A pinned definition from its payload: absent (not kept, or erased), or bytes that do not hash to the pin. */
type Stored = { definition: Json } | { missing: true } | { altered: true };

function storedDefinition(store: LogStore, digest: Digest): Stored {
  const bytes = store.payload(digest);
  if (!bytes) return { missing: true };
  // The payload table is not signed: only bytes that hash to the signed pin are its definition.
  if (digestBytes(bytes) !== digest) return { altered: true };
  return { definition: parseJson(utf8.decode(bytes)) as Json };
}

const definitionOf = (s: Stored | undefined): Json | null => (s && 'definition' in s ? s.definition : null);

function list(argv: string[], io: Io): number {
  const { values } = parse(argv, TENANT_OPTION);
  if (values.help) return io.out(help), EXIT.ok;
  const store = openVerifiedReadOnly(values.data!, values.tenant!, values['key-name']!);
  try {
    const rows = [...readPins(store)].map(([key, p]) => {
      if (!p.pending) return { tool: key, pinned: p.pinned, pending: null, seq: p.seq };
      const before = storedDefinition(store, p.pinned);
      const after = storedDefinition(store, p.pending);
      const definitions = { pinned: definitionOf(before), pending: definitionOf(after) };
      const changes = definitions.pinned !== null && definitions.pending !== null ? diffDefinitions(definitions.pinned, definitions.pending) : null;
      return { tool: key, pinned: p.pinned, pending: p.pending, seq: p.seq, definitions, changes, stored: { pinned: before, pending: after } };
    });
    if (values.json) io.out(JSON.stringify(rows.map(({ stored: _, ...r }) => r)));
    else if (!rows.length) io.out('no tool pinned yet');
    else for (const r of rows) for (const line of describeRow(r, `--data ${shellWord(values.data!)} --tenant ${shellWord(values.tenant!)}`)) io.out(line);
    return EXIT.ok;
  } finally {
    store.close();
  }
}

/** `where`: the `--data`/`--tenant` this listing read, so the approve command it prints reaches the same log. */
function describeRow(r: { tool: string; pinned: Digest; pending: Digest | null; seq: number; changes?: DefinitionChange[] | null; stored?: { pinned: Stored; pending: Stored } }, where: string): string[] {
  const head = `${r.tool}  ${r.pinned}${r.pending ? `  CHANGED -> ${r.pending} (hidden until approved)` : ''}  #${r.seq}`;
  if (!r.pending || !r.stored) return [head];
  const slash = r.tool.indexOf('/');
  const lines = [head, `  approve it with: vouch tools approve ${shellWord(r.tool.slice(0, slash))} ${shellWord(r.tool.slice(slash + 1))} ${r.pending} ${where}`];
  const why = (s: Stored, which: string) => ('altered' in s ? `the stored ${which} definition does not hash to its pin (altered)` : 'missing' in s ? `the ${which} definition is not recorded` : undefined);
  const gaps = [why(r.stored.pinned, 'pinned'), why(r.stored.pending, 'new')].filter((w): w is string => w !== undefined);
  if (gaps.length) return [...lines, `  no diff: ${gaps.join('; ')} (definitions not recorded: pins written before vouch kept them, or erased, show their digests only)`];
  if (!r.changes?.length) return [...lines, '  no difference in what the model reads'];
  return [...lines, '  pinned (-) and new (+) definition, where they differ:', ...formatDefinitionChanges(r.changes)];
}

/** A word a POSIX shell reads as itself: the tool's name is the upstream's, and a hint is copied into a shell. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9._:@+=,-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`;
}
