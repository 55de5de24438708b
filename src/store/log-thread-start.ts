// Where the log writer thread's code is, and starting that thread early (NODE-ONLY; see
// log-thread.ts, which takes the thread and talks to it). Kept apart, with nothing but Node's own
// modules, so that bin/vouch.js can start the thread before it loads anything else.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * Compiled (dist/*.js): the host is JavaScript and starts as is, as one bundled file when the
 * build made one (scripts/bundle-dist.mjs); from the TypeScript sources (tests, tsx) the .mjs
 * entry registers tsx in the thread first.
 */
export function hostUrl(): URL {
  if (!import.meta.url.endsWith('.js')) return new URL('./log-thread-worker.mjs', import.meta.url);
  const bundled = new URL('../.bundle/log-thread-host.mjs', import.meta.url);
  return existsSync(bundled) ? bundled : new URL('./log-thread-host.js', import.meta.url);
}

interface Prestarted {
  worker: Worker;
  /** The thread ended before anyone took it (it failed to load): not taken, a new one is started. */
  ended: boolean;
}
// On globalThis: bin/vouch.js prestarts from dist/store/log-thread-start.js, and the bundle that takes
// the thread holds its own copy of this module.
const PRESTARTED = Symbol.for('vouch.prestarted-log-thread');
const registry = globalThis as { [PRESTARTED]?: Prestarted };

/**
 * Start the log thread now, before its keys are read, so its modules load while this thread
 * loads its own (`vouch serve` calls it first thing: start-up's longest path was this thread's
 * module loading, begun only after the main thread had loaded everything). The next
 * startLogThread without a workerUrl takes it and sends the keys. Untaken, it keeps nothing alive.
 */
export function prestartLogThread(): void {
  if (registry[PRESTARTED]) return;
  const p: Prestarted = { worker: new Worker(hostUrl(), { workerData: null }), ended: false };
  p.worker.unref();
  p.worker.once('error', () => void (p.ended = true));
  p.worker.once('exit', () => void (p.ended = true));
  registry[PRESTARTED] = p;
}

/** The prestarted thread, if one is up: the caller sends it its keys (an `init` message). */
export function takePrestarted(): Worker | undefined {
  const p = registry[PRESTARTED];
  registry[PRESTARTED] = undefined;
  if (!p || p.ended) return undefined;
  p.worker.ref();
  return p.worker;
}
