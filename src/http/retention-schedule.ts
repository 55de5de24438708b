// Payload retention in `vouch serve` (issue 40): every `everyMinutes`, and once at start, each
// tenant log whose policy sets a retention passes through audit/retention.ts in turn, off the
// decision path (its erasure entries queue behind decisions like any other append). A failed
// pass is counted and logged and tried again at the next one; it never stops the service.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRetentionPolicy, retentionDaysOf, runRetention, type RetentionPolicy, type RetentionRun, type RetentionTarget } from '../audit/index.js';
import { parseJson } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
/** `--retention FILE`, else DIR/retention.json when present, else none (payloads kept). A bad file is a start-up error. */
export function readRetentionPolicy(data: string, path?: string): RetentionPolicy | undefined {
  if (path === undefined) {
    if (!existsSync(join(data, 'retention.json'))) return undefined;
    path = join(data, 'retention.json');
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `cannot read retention config ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  return parseRetentionPolicy(parseJson(text));
}

export interface RetentionScheduleDeps {
  policy: RetentionPolicy;
  /** Tenants with a log (the data directory's logs/), read at each pass. */
  tenants(): string[];
  target(tenant: string): Promise<RetentionTarget>;
  now(): string;
  onRun(tenant: string, run: RetentionRun): void;
  onError(tenant: string, e: unknown): void;
}

export interface RetentionSchedule {
  /** One pass over every tenant now (the next timed one is not moved). */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startRetention(deps: RetentionScheduleDeps): RetentionSchedule {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = async (): Promise<void> => {
    for (const tenant of deps.tenants()) {
      if (stopped) return;
      const days = retentionDaysOf(deps.policy, tenant);
      if (days === undefined) continue;
      try {
        deps.onRun(tenant, await runRetention(await deps.target(tenant), { days, now: deps.now() }));
      } catch (e) {
        deps.onError(tenant, e);
      }
    }
  };
  const runNow = (): Promise<void> => (running = running.then(pass));
  const timer = setInterval(() => void runNow(), deps.policy.everyMinutes * 60_000);
  timer.unref();
  void runNow();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
