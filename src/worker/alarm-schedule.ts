// The tenant log object's one alarm, shared by witnessing, payload retention and the R2 tile
// archive: each records in the object's SQLite when it next wants to run, the alarm is set to the
// earliest of them, and when it fires each runs whose time has come. The tenant is kept beside
// them: an alarm arrives with no request to name it.
import type { DurableSqlStorage } from '../store/durable-object.js';

export type AlarmJob = 'witness' | 'retention' | 'archive';

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS worker_alarm_due (job TEXT PRIMARY KEY, at INTEGER NOT NULL)',
  'CREATE TABLE IF NOT EXISTS worker_alarm_tenant (one INTEGER PRIMARY KEY CHECK (one = 1), tenant TEXT NOT NULL)',
];

export interface AlarmSchedule {
  tenant(): string | undefined;
  setTenant(tenant: string): void;
  /** When the job next wants to run (ms since the epoch), if it does. */
  due(job: AlarmJob): number | undefined;
  /** The job runs at `at`; `earliest` keeps an earlier time already recorded (a witness round pending). */
  want(job: AlarmJob, at: number, opts?: { earliest?: boolean }): void;
  drop(job: AlarmJob): void;
  /** Takes the jobs due at `now` (they run now, and record their next time themselves). */
  take(now: number): AlarmJob[];
  /** The alarm's time: the earliest job's, or undefined when none waits. */
  next(): number | undefined;
}

export function openAlarmSchedule(storage: DurableSqlStorage): AlarmSchedule {
  for (const s of SCHEMA) storage.sql.exec(s);
  const rows = (sql: string, ...b: unknown[]) => storage.sql.exec(sql, ...b).toArray();
  return {
    tenant: () => rows('SELECT tenant FROM worker_alarm_tenant')[0]?.tenant as string | undefined,
    setTenant: (tenant) => void storage.sql.exec('INSERT INTO worker_alarm_tenant (one, tenant) VALUES (1, ?) ON CONFLICT(one) DO UPDATE SET tenant = excluded.tenant', tenant),
    due: (job) => {
      const at = rows('SELECT at FROM worker_alarm_due WHERE job = ?', job)[0]?.at;
      return at === undefined ? undefined : Number(at);
    },
    want: (job, at, opts = {}) =>
      void storage.sql.exec(`INSERT INTO worker_alarm_due (job, at) VALUES (?, ?) ON CONFLICT(job) DO UPDATE SET at = ${opts.earliest ? 'MIN(at, excluded.at)' : 'excluded.at'}`, job, Math.floor(at)),
    drop: (job) => void storage.sql.exec('DELETE FROM worker_alarm_due WHERE job = ?', job),
    take: (now) => rows('DELETE FROM worker_alarm_due WHERE at <= ? RETURNING job', now).map((r) => r.job as AlarmJob),
    next: () => {
      const at = rows('SELECT MIN(at) AS at FROM worker_alarm_due')[0]?.at;
      return at === null || at === undefined ? undefined : Number(at);
    },
  };
}
