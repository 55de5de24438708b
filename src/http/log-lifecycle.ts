// The service's tenant logs over their life (Node only): readiness for /healthz (opened, checked
// against the newest signed checkpoint, not halted by the background audit), and the checkpoints
// it signs and publishes on clean shutdown and after an idle interval, so that a holder of any
// later checkpoint can prove a cut (a log later found shorter, or different, than one it signed).
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeOf, publicMessage } from '../errors.js';
import { toHex } from '../canonical/index.js';
import { parseCheckpoint, type SignedTree } from '../log/index.js';
import type { DataDir, TenantLog } from '../store/node.js';
import type { Metrics } from './metrics.js';

export interface LogLifecycleOptions {
  data: string;
  dataDir: DataDir;
  metrics: Metrics;
  logLine?: (line: Record<string, unknown>) => void;
  /** Sign and publish a checkpoint once a log has been idle this long with entries since the last one (0: never). */
  idleCheckpointMs: number;
}

type State = { opening: true } | { opening: false; log: TenantLog } | { opening: false; error: unknown };

/** `message` with the tenant's name (alone, or in its origin) as `<tenant>`: for public answers. */
function withoutName(message: string, tenant: string): string {
  const name = tenant.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // tenant names hold none: kept safe anyway
  return message.replace(new RegExp(`(?<![a-z0-9_-])${name}(?![a-z0-9_-])`, 'g'), '<tenant>');
}

/** The root hash (hex) a signed checkpoint note commits to. */
function rootOf(note: string): string | undefined {
  try {
    return toHex(parseCheckpoint(note.slice(0, note.indexOf('\n\n') + 1)).root);
  } catch {
    return undefined; // the note was just signed by this process: only a line's detail is at stake
  }
}

/** Where the newest published checkpoint of a tenant is written (besides the log line). */
export function publishedCheckpointPath(data: string, tenant: string): string {
  return join(data, 'checkpoints', `${tenant}.note`);
}

export function createLogLifecycle(opts: LogLifecycleOptions) {
  const states = new Map<string, State>();
  const published = new Map<string, number>();
  const seen = new Map<string, number>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const publish = (tenant: string, signed: SignedTree, reason: 'shutdown' | 'idle'): void => {
    published.set(tenant, signed.size);
    opts.metrics.checkpointPublished(tenant, signed.size);
    const path = publishedCheckpointPath(opts.data, tenant);
    mkdirSync(join(opts.data, 'checkpoints'), { recursive: true, mode: 0o700 });
    writeFileSync(`${path}.tmp`, signed.note, { mode: 0o600 });
    chmodSync(`${path}.tmp`, 0o600);
    renameSync(`${path}.tmp`, path);
    // One short line (the note is 4.6 KB, mostly its ML-DSA-65 signature): where it is and what it
    // commits to; the note itself at debug, and in the file.
    opts.logLine?.({ level: 'info', msg: 'checkpoint', reason, tenant, size: signed.size, root: rootOf(signed.note), file: path });
    opts.logLine?.({ level: 'debug', msg: 'checkpoint note', reason, tenant, size: signed.size, note: signed.note });
  };

  const sign = async (tenant: string, log: TenantLog, reason: 'shutdown' | 'idle'): Promise<void> => {
    if (!log.appender.checkpointNow || log.appender.health?.().halted) return;
    try {
      publish(tenant, await log.appender.checkpointNow(), reason);
    } catch (e) {
      opts.logLine?.({ level: 'error', msg: 'checkpoint not signed', reason, tenant, code: codeOf(e), error: publicMessage(e) });
    }
  };

  /** One tick: a log whose size did not change since the last tick and differs from what was published is idle. */
  let ticking = false;
  const idleTick = async (): Promise<void> => {
    if (ticking) return; // a signature still in progress: this tick is skipped, not queued
    ticking = true;
    try {
      await idleOnce();
    } finally {
      ticking = false;
    }
  };
  const idleOnce = async (): Promise<void> => {
    for (const [tenant, s] of states) {
      if (s.opening || !('log' in s)) continue;
      const size = s.log.appender.size;
      const before = seen.get(tenant);
      seen.set(tenant, size);
      if (size > 0 && size === before && size !== published.get(tenant)) await sign(tenant, s.log, 'idle');
    }
  };

  return {
    /** Track a tenant log being opened (resolves once its writer checked it). */
    track(tenant: string, opened: Promise<TenantLog>): void {
      states.set(tenant, { opening: true });
      opened.then(
        (log) => states.set(tenant, { opening: false, log }),
        (error) => states.set(tenant, { opening: false, error }),
      );
    },
    /**
     * A tenant log about to close when idle (issue 40): a checkpoint over all it holds is signed and
     * published (as at shutdown), and it is no longer watched. Its next open tracks it again.
     */
    async release(tenant: string): Promise<void> {
      const s = states.get(tenant);
      states.delete(tenant);
      seen.delete(tenant);
      // Only when idle checkpoints are published at all (its closing Appender has signed over every entry anyway).
      if (opts.idleCheckpointMs > 0 && s && !s.opening && 'log' in s && s.log.appender.size > 0 && s.log.appender.size !== published.get(tenant)) await sign(tenant, s.log, 'idle');
    },
    /**
     * Ready only when every log known is open, checked and signing. /healthz is public: the reason
     * names no tenant (issue 35); which one is in the service's log lines.
     */
    health(): { ok: true } | { ok: false; code: string; reason: string } {
      // A definite failure is said before "being opened": a log whose background audit halted its
      // signing while its open was still recording the activation is halted, not opening.
      let opening = false;
      for (const [tenant, s] of states) {
        if (s.opening) {
          const halted = opts.dataDir.peekLog(tenant)?.appender.health?.().halted;
          if (halted) return { ok: false, code: halted.code, reason: `a tenant log: ${withoutName(halted.message, tenant)}` };
          opening = true;
          continue;
        }
        if ('error' in s) return { ok: false, code: codeOf(s.error), reason: `a tenant log: ${withoutName(publicMessage(s.error), tenant)}` };
        const halted = s.log.appender.health?.().halted;
        if (halted) return { ok: false, code: halted.code, reason: `a tenant log: ${withoutName(halted.message, tenant)}` };
      }
      return opening ? { ok: false, code: 'ERR_STORE', reason: 'a tenant log is being opened' } : { ok: true };
    },
    start(): void {
      if (opts.idleCheckpointMs > 0) {
        timer = setInterval(() => void idleTick(), opts.idleCheckpointMs);
        timer.unref();
      }
    },
    /** Clean shutdown: stop the timer, sign and publish every open log's checkpoint. */
    async shutdown(): Promise<void> {
      if (timer) clearInterval(timer);
      for (const [tenant, s] of states) if (!s.opening && 'log' in s && s.log.appender.size > 0) await sign(tenant, s.log, 'shutdown');
    },
  };
}
