// Argument parsing on node:util parseArgs, with the options every command shares. Mistakes are
// said in vouch's words (issue 37): parseArgs' own messages name internals (`--n <value>`,
// "positional argument"), so the tokens are checked here first, and a typo gets the nearest flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_DATA_DIR } from '../store/node.js';
import { UsageError } from './io.js';
import { nearest } from './suggest.js';

export { unknownCommand } from './suggest.js';

export const COMMON = {
  data: { type: 'string', default: DEFAULT_DATA_DIR },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<T extends Options>(argv: string[], options: T, allowPositionals = false) {
  const all = { ...COMMON, ...options };
  checkTokens(argv, all, allowPositionals);
  try {
    return parseArgs({ args: argv, options: all, allowPositionals, strict: true });
  } catch {
    // checkTokens caught every case parseArgs knows; should its rules grow, still no Node text.
    throw new UsageError(`cannot read the options ${JSON.stringify(argv.join(' '))} (options: ${flagList(all)})`);
  }
}

/** How a user writes an option: one letter takes one dash (`-n`, also accepted as `--n`). */
export function flagOf(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

function flagList(options: Options): string {
  return Object.keys(options).sort().map((n) => {
    const short = options[n].short;
    return short && short !== n ? `${flagOf(n)}/-${short}` : flagOf(n);
  }).join(', ');
}

function checkTokens(argv: string[], options: Options, allowPositionals: boolean): void {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const known = new Map<string, string>();
  for (const [name, o] of Object.entries(options)) {
    known.set(name, name);
    if (o.short) known.set(o.short, name);
  }
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue; // what follows `--` comes as positionals
    if (t.kind === 'positional') {
      if (!allowPositionals) throw new UsageError(`unexpected argument ${JSON.stringify(t.value)}: this command takes options only (options: ${flagList(options)})`);
      continue;
    }
    const name = known.get(t.name);
    if (name === undefined) {
      const near = nearest(t.name, Object.keys(options));
      throw new UsageError(`unknown option ${t.rawName}${near ? `: did you mean ${flagOf(near)}?` : ''} (options: ${flagList(options)})`);
    }
    const flag = flagOf(name);
    if (options[name].type === 'boolean') {
      if (t.inlineValue) throw new UsageError(`${flag} takes no value (give ${flag} alone)`);
      continue;
    }
    if (t.value === undefined) throw new UsageError(`${flag} needs a value`);
    // `--port --json`: parseArgs takes the next option as the value; nobody means that. A value
    // that starts with a dash goes inline, as parseArgs asks (`--n=-5`).
    if (!t.inlineValue && t.value.startsWith('-') && t.value.length > 1) {
      if (/^--?[A-Za-z]/.test(t.value)) throw new UsageError(`${flag} needs a value, not the option ${t.value}`);
      throw new UsageError(`${flag} ${t.value}: a value that starts with "-" is written --${name}=${t.value}`);
    }
  }
}

export function intOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(v)) throw new UsageError(`${flagOf(name)} takes a non-negative integer`);
  return Number(v);
}
