// The nearest known name to a mistyped one, for "did you mean" (issue 37). No imports beyond
// io.ts: main.ts uses it before any command module loads.
import { UsageError } from './io.js';

/** An unknown command or subcommand, with the nearest known one and the list (`vouch tools lst`). */
export function unknownCommand(what: string, typed: string, known: string[]): UsageError {
  const near = nearest(typed, known);
  return new UsageError(`unknown ${what} ${JSON.stringify(typed)}${near ? `: did you mean ${near}?` : ''} (${what}s: ${known.join(', ')})`);
}

/** The known name closest to a mistyped one (edit distance, a swap of two letters counting one), if close enough. */
export function nearest(typed: string, names: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(typed.toLowerCase(), name);
    if (best === undefined || d < best.d) best = { name, d };
  }
  // Within a third of the word (at least one edit): "jsn" -> json, "prot" -> port, not "x" -> n.
  return best && best.d <= Math.max(1, Math.floor(best.name.length / 3)) && best.d < typed.length ? best.name : undefined;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
