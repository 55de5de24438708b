// Diagnostics on stderr for the long-running commands (serve, gateway, witness): structured lines
// (one JSON object each, with its time and level) and the operator's text lines, filtered by
// --log-level. Quiet by default: info holds what an operator acts on, debug the bulky detail.
import { UsageError, type Io } from './io.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** The option, for a command's parse() table. */
export const LOG_LEVEL_OPTION = { 'log-level': { type: 'string', default: 'info' } } as const;

export const LOG_LEVEL_HELP = `  --log-level L  what goes to stderr: error, warn, info (default) or debug (adds bulky detail, e.g. each signed note)`;

export function parseLogLevel(v: string | undefined): LogLevel {
  if (v === undefined) return 'info';
  if (Object.hasOwn(RANK, v)) return v as LogLevel;
  throw new UsageError(`--log-level takes error, warn, info or debug, not ${JSON.stringify(v)}`);
}

export type LogLine = (line: Record<string, unknown>) => void;

export interface Diagnostics {
  enabled(level: LogLevel): boolean;
  /** A structured line `{t, level, ...}`; a line that names no level is info. */
  line: LogLine;
  /** A line of text for the operator (a warning, a summary) at `level`. */
  text(level: LogLevel, s: string): void;
}

/** `io` undefined: nothing at all (the gateway's --quiet). */
export function diagnostics(io: Io | undefined, level: LogLevel, now: () => Date = () => new Date()): Diagnostics {
  const enabled = (l: LogLevel) => io !== undefined && RANK[l] <= RANK[level];
  const levelOf = (v: unknown): LogLevel => (typeof v === 'string' && Object.hasOwn(RANK, v) ? (v as LogLevel) : 'info');
  return {
    enabled,
    line: (l) => {
      const lv = levelOf(l.level);
      if (enabled(lv)) io!.err(JSON.stringify({ t: now().toISOString(), ...l, level: lv }));
    },
    text: (l, s) => {
      if (enabled(l)) io!.err(s);
    },
  };
}
