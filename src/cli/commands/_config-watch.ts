// While `vouch serve` runs, an edit to its config file (or the Cedar files it names) is not used:
// the policy changes only through a `policy` entry. Watch the files and say so, once per edit,
// with the way to put the edited file in force. Stat polling: editors that replace files are seen.
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { configFilesOf, loadConfigFile } from '../../policy/load-config.js';

export interface WatchTarget {
  config: string;
  /** The chain the service loaded from the file at start: an edit made before the watch began is caught too. */
  loadedChain: string;
  /** The chain in force for each tenant shown at start (read again at each edit). */
  inForce(): Promise<{ tenant: string; chain: string }[]>;
  warn(w: { msg: string; tenant?: string; fileChain?: string; chain?: string; error?: string }): void;
  hint(tenant: string): string;
  intervalMs?: number;
  /** When the first comparison of the file with what was loaded runs (default 2000 ms after the watch starts). */
  initialCheckMs?: number;
}

// The files are listed without loading the policy (no Cedar work beside the first decisions).
const filesOf = configFilesOf;

/** Start watching; returns the function that stops it. */
export async function watchConfig(t: WatchTarget): Promise<() => void> {
  // The files are listed (a parse of the config) at the first check, not now: now is when the
  // service's first decisions run, on this thread. An edit before then is what that check catches.
  let files: string[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let warned = new Set<string>();
  const check = async (initial = false) => {
    let chain: string;
    try {
      chain = (await loadConfigFile(t.config)).chainDigest;
      if (initial && chain === t.loadedChain) return; // unchanged since start: the start-up lines said it all
    } catch (e) {
      t.warn({ msg: `${t.config} was edited and cannot be loaded (${(e as Error).message}); the policy in force is unchanged`, error: (e as Error).message });
      return;
    }
    const next = new Set<string>();
    for (const f of await t.inForce()) {
      if (f.chain === chain) continue;
      const key = `${f.tenant} ${chain}`;
      next.add(key);
      if (!warned.has(key)) {
        t.warn({ msg: `tenant ${f.tenant}: ${t.config} was edited (chain ${chain.slice(0, 19)}…) and is NOT in force: the service keeps chain ${f.chain.slice(0, 19)}… until it is activated. ${t.hint(f.tenant)}`, tenant: f.tenant, fileChain: chain, chain: f.chain });
      }
    }
    warned = next; // back to the policy in force: a later edit warns again
    await listFiles();
  };
  const listFiles = async () => {
    const now = await filesOf(t.config);
    if (!stopped && now.join('\n') !== files.join('\n')) rewatch(now);
  };
  const onChange = (cur: Stats, prev: Stats) => {
    if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size) return;
    clearTimeout(timer);
    timer = setTimeout(() => void check().catch(() => undefined), 200);
    timer.unref();
  };
  const rewatch = (next: string[]) => {
    for (const f of files) unwatchFile(f, onChange);
    files = next;
    for (const f of files) watchFile(f, { interval: t.intervalMs ?? 1000, persistent: false }, onChange);
  };
  // The edit made between start-up's load and the watch is caught a moment later, not in the
  // middle of the first decisions: the check loads the whole policy again, then lists the files
  // to watch (also when the file is unchanged).
  const initial = setTimeout(() => void check(true).then(listFiles).catch(() => undefined), t.initialCheckMs ?? 2000);
  initial.unref();
  return () => {
    stopped = true;
    clearTimeout(initial);
    clearTimeout(timer);
    for (const f of files) unwatchFile(f, onChange);
  };
}
