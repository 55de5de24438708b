// Argument parsing on node:util parseArgs, with the options every command shares.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_DATA_DIR } from '../store/node.js';
import { UsageError } from './io.js';

export const COMMON = {
  data: { type: 'string', default: DEFAULT_DATA_DIR },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function intOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(v)) throw new UsageError(`--${name} takes a non-negative integer`);
  return Number(v);
}
