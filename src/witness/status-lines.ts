// What a service's log says about each witness over time. A witness that is down is polled every
// interval (1 s by default): one warn line a poll would bury everything else. So: a warn line when
// it stops cosigning (or fails for a new reason), a reminder at warn every `remindMs` while it stays
// down, the polls between at debug, and an info line when it cosigns again. /metrics counts every failure.
import type { WitnessStatus } from './submitter.js';

type Line = (l: Record<string, unknown>) => void;

export function witnessStatusLines(line: Line, opts: { now?: () => number; remindMs?: number } = {}) {
  const now = opts.now ?? Date.now;
  const remindMs = opts.remindMs ?? 5 * 60_000;
  const down = new Map<string, { error?: string; since: number; failures: number; told: number }>();
  return (tenant: string, st: WitnessStatus): void => {
    const key = `${tenant}\u0000${st.witness}`;
    const was = down.get(key);
    const about = { tenant, witness: st.witness, size: st.logSize, cosigned: st.cosignedSize };
    if (st.ok) {
      if (was) line({ level: 'info', msg: 'witness cosigns again', ...about, failures: was.failures });
      down.delete(key);
      return;
    }
    const t = now();
    const d = was ?? { error: st.error, since: t, failures: 0, told: -Infinity };
    d.failures++;
    const tell = !was || d.error !== st.error || t - d.told >= remindMs;
    d.error = st.error;
    if (tell) d.told = t;
    down.set(key, d);
    line({ level: tell ? 'warn' : 'debug', msg: 'witness did not cosign', ...about, error: st.error, ...(was && { failures: d.failures, since: new Date(d.since).toISOString() }) });
  };
}
