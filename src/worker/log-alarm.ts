// The tenant log object's alarm work: after commits, witness rounds and archive passes are
// scheduled; when the alarm fires, the due jobs run (witnessing, payload retention, R2 archive).
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { openWitnessRecord, witnessRound, workerWitnessLines } from './witnessing.js';
import { openAlarmSchedule, type AlarmSchedule } from './alarm-schedule.js';
import { retentionPass } from './retention.js';
import { archivePass } from './archiving.js';
import type { OpenLog } from './open-log.js';

/** The first retention pass of a log, after it first opens with the var set: off its first decisions. */
const FIRST_RETENTION_DELAY_MS = 60_000;

/**
 * An archive pass this long after a commit: the commits in between share it (each pass puts the
 * partial tiles at the log's edge and the checkpoint again, R2 class A operations), so the bucket
 * trails the log by about this much. After a refusal or failure, the next try waits the longer delay.
 */
const ARCHIVE_DELAY_MS = 30_000;
const ARCHIVE_RETRY_MS = 15 * 60_000;

export class LogAlarm {
  /** A witness round is scheduled (set by an append, cleared when the alarm runs). */
  private witnessPending = false;
  /** An archive pass is scheduled (set by a commit, cleared when the pass runs). */
  private archivePending = false;
  private schedule: AlarmSchedule | undefined;
  private witnessLines = workerWitnessLines();

  constructor(private readonly storage: DurableObjectState['storage']) {}

  /** A log just opened: the tenant recorded for the alarm, and its next retention pass. */
  opening(log: OpenLog): void {
    const { tenant, retention } = log;
    const schedule = this.alarms();
    if (schedule.tenant() !== tenant) schedule.setTenant(tenant);
    if (retention) {
      // The next pass: the one recorded, brought forward when the var now asks for a shorter period.
      const soonest = Date.now() + (schedule.due('retention') === undefined ? FIRST_RETENTION_DELAY_MS : retention.everyMinutes * 60_000);
      if ((schedule.due('retention') ?? Infinity) > soonest) {
        schedule.want('retention', soonest);
        this.arm();
      }
    }
  }

  /**
   * A log just opened with its bucket bound: when the log holds more than it (newly bound, or
   * commits before a restart), or a refused pass has no retry waiting, a pass soon (the retry's
   * delay after a refusal).
   */
  opened(log: OpenLog): void {
    const { archive, store } = log;
    const schedule = this.alarms();
    if (archive && schedule.due('archive') === undefined) {
      const { size, error } = archive.record.status();
      if (error !== undefined || (store.latestCheckpoint()?.size ?? 0) > size) {
        schedule.want('archive', Date.now() + (error !== undefined ? ARCHIVE_RETRY_MS : ARCHIVE_DELAY_MS));
        this.arm();
      }
    }
  }

  private alarms(): AlarmSchedule {
    return (this.schedule ??= openAlarmSchedule(this.storage));
  }

  /** The object's one alarm, set to the earliest job's time (a storage write, ordered with the others). */
  private arm(onError?: () => void): void {
    const at = this.alarms().next();
    if (at !== undefined) this.storage.setAlarm(at).catch(() => onError?.());
  }

  /**
   * After a commit, make sure a witness round follows (the alarm, one interval later): the reply
   * never waits on a witness. setAlarm is a storage write, ordered with the append's.
   */
  private witnessSoon(log: OpenLog): void {
    if (!log.witness || this.witnessPending) return;
    this.witnessPending = true;
    // The earlier of this round and one already waiting; a retention pass due sooner keeps the alarm.
    this.alarms().want('witness', Date.now() + log.witness.config.intervalMs, { earliest: true });
    this.arm(() => (this.witnessPending = false));
  }

  /**
   * After a commit, an archive pass one ARCHIVE_DELAY_MS later (the commits meanwhile share it).
   * While the last pass was refused or failed, its retry (ARCHIVE_RETRY_MS) stands: a bucket with a
   * changed object is not asked again at every commit.
   */
  private archiveSoon(log: OpenLog): void {
    if (!log.archive || this.archivePending || log.archive.record.status().error !== undefined) return;
    this.archivePending = true;
    this.alarms().want('archive', Date.now() + ARCHIVE_DELAY_MS, { earliest: true });
    this.arm(() => (this.archivePending = false));
  }

  /** A commit's follow-ups, all from the alarm: the witness round and the archive pass. */
  committed(log: OpenLog): void {
    this.witnessSoon(log);
    this.archiveSoon(log);
  }

  /**
   * The alarm: the jobs whose time has come. The witness round sends the newest checkpoint to every
   * witness (again after the interval while one is behind or failing); the retention pass erases
   * expired payloads (again after everyMinutes). Never on the decision path: its appends queue
   * behind decisions like any other. `openTenant` is the tenant of the log already open, if one
   * is; `logOf` opens it.
   */
  async run(openTenant: string | undefined, logOf: (tenant: string) => OpenLog): Promise<void> {
    this.witnessPending = false;
    const schedule = this.alarms();
    const tenant = openTenant ?? schedule.tenant() ?? openWitnessRecord(this.storage).tenant();
    if (tenant === undefined) return;
    // The alarm was set for the earliest job: that one is due even if this clock reads a little earlier.
    const now = Date.now();
    const jobs = schedule.take(Math.max(now, schedule.next() ?? now));
    let log: OpenLog;
    try {
      log = logOf(tenant);
    } catch (e) {
      // A log that cannot open (keys that do not match, a bad var) signs nothing new: nothing to witness or erase until it does.
      console.error(JSON.stringify({ level: 'error', msg: 'alarm: log cannot be opened', tenant, error: (e as Error).message }));
      return;
    }
    // Every alarm brings a witness round, its own or not: one an earlier version set (no job
    // recorded), or one whose alarm a retention pass moved, is never lost. A caught-up witness costs one request.
    if (log.witness) {
      const w = log.witness;
      const { behind } = await witnessRound({ tenant, port: log.port, config: w.config, cosigs: w.cosigs, record: w.record, line: this.witnessLines });
      if (behind) this.witnessSoon(log);
    }
    if (log.retention && jobs.includes('retention')) {
      const run = await retentionPass({ tenant, port: log.port, policy: log.retention, now: new Date().toISOString() });
      schedule.want('retention', Date.now() + log.retention.everyMinutes * 60_000);
      // Its erasure entries are new checkpoints for the witnesses and the archive.
      if (run?.seqs.length) this.committed(log);
    }
    if (log.archive && jobs.includes('archive')) {
      // Cleared first: a commit during the pass schedules the next one.
      this.archivePending = false;
      const { ok } = await archivePass({ tenant, bucket: log.archive.bucket, storage: log.store, record: log.archive.record });
      if (!ok) schedule.want('archive', Date.now() + ARCHIVE_RETRY_MS, { earliest: true });
      else if ((log.store.latestCheckpoint()?.size ?? 0) > log.archive.record.status().size) this.archiveSoon(log);
    }
    // This alarm is spent: set it again for the earliest job still waiting (one not due yet).
    this.arm();
  }
}
