// The contract between the benchmark harness (run.ts) and each `*.bench.ts` module: a module
// exports `run(ctx)` and resolves to its results; the harness prints, ranks and records them.

/** One measured number. `baseline` is what it is compared with, `ratio` = value / baseline. */
export interface Result {
  name: string;
  unit: string;
  value: number;
  baseline?: number;
  ratio?: number;
  /** One line of context for the table and the JSON report (never in --json lines). */
  note?: string;
  /** Nothing was measured (the thing is not there): shown as "absent", `value: null` in --json. */
  absent?: true;
}

export interface BenchContext {
  /** --quick: a short run (smaller workloads, one repetition) for smoke checks and CI. */
  quick: boolean;
  /** How many times to repeat each measurement (3, or 1 with --quick); report the median. */
  repeat: number;
  /** A fresh temporary directory, removed when the whole run ends. */
  tempDir(prefix: string): string;
  /** Progress for humans, on stderr: stdout belongs to the table or the --json lines. */
  log(line: string): void;
}

export interface BenchModule {
  run(ctx: BenchContext): Promise<Result[]>;
}
