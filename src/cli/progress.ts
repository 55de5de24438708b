// Progress for long CLI work (export, verify, replay of many entries): one line on stderr,
// rewritten in place, only when stderr is a terminal and the output is not --json, and cleared
// when done, so pipes, logs and machine output never see it.

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  /** A new stage, e.g. "verifying entries", with the count expected when known. */
  stage(label: string, total?: number): void;
  /** `n` more items of the current stage. */
  tick(n?: number): void;
  /** Clear the line (call once, also on failure). */
  done(): void;
}

export interface ProgressOptions {
  /** Where to draw (default process.stderr); nothing is drawn unless it is a TTY. */
  stream?: ProgressStream;
  /** --json: stay quiet whatever the stream is. */
  json?: boolean;
  /** Minimum time between redraws (default 100 ms); the first tick draws at once. */
  intervalMs?: number;
  now?: () => number;
}

const QUIET: Progress = { stage: () => undefined, tick: () => undefined, done: () => undefined };

export function createProgress(command: string, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.json || !stream.isTTY) return QUIET;
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? 100;
  let label = '';
  let total: number | undefined;
  let count = 0;
  let last = -Infinity;
  let shown = false;
  const draw = () => {
    const of = total !== undefined && total > 0 ? `/${total.toLocaleString('en-US')} (${Math.min(100, Math.floor((count * 100) / total))}%)` : '';
    stream.write(`\r\x1b[K${command}: ${label} ${count.toLocaleString('en-US')}${of}`);
    shown = true;
    last = now();
  };
  return {
    stage(l, t) {
      label = l;
      total = t;
      count = 0;
      draw();
    },
    tick(n = 1) {
      count += n;
      if (now() - last >= interval || (total !== undefined && count === total)) draw();
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}

/** Count the items of an async iterable as they pass. */
export async function* counted<T>(items: AsyncIterable<T>, progress: Progress): AsyncIterable<T> {
  for await (const item of items) {
    progress.tick();
    yield item;
  }
}

/** `source` with its `entries(from, to)` counted: each call is a new stage of `to - from` entries. */
export function watchEntries<T, S extends { entries(from: number, to: number): AsyncIterable<T> }>(source: S, progress: Progress, label: (call: number) => string): S {
  let calls = 0;
  // A view over the source (its methods still see their own object), only `entries` replaced.
  const view = Object.create(source) as S;
  view.entries = (from: number, to: number) => {
    progress.stage(label(calls++), Number.isFinite(to - from) ? to - from : undefined);
    return counted(source.entries(from, to), progress);
  };
  return view;
}
