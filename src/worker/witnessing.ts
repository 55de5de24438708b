// Witnessing on Workers (docs/workers-build.md): the witness config from the VOUCH_WITNESSES var (the
// JSON of Node's --witnesses file, parsed by the same code), and in the tenant log object the round
// its alarm runs: Node's WitnessSubmitter over the object's log and its cosignature record, each
// witness's progress and failure count kept beside them (what /metrics shows), one log line per
// change as on Node. Never on the decision path: only the alarm talks to witnesses.
import { parseJson } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import type { DurableSqlStorage } from '../store/durable-object.js';
import type { LogPort } from '../store/log-port.js';
import { parseWitnessingConfig, type WitnessingConfig } from '../witness/config.js';
import type { CosignatureStore } from '../witness/cosig-store.js';
import { witnessStatusLines } from '../witness/status-lines.js';
import { WitnessSubmitter, type WitnessStatus } from '../witness/submitter.js';
import type { WorkerEnv } from './env.js';

/** The var's config, or undefined when witnessing is off; a bad value is ERR_CONFIG naming the var. */
export function witnessingOf(env: Pick<WorkerEnv, 'VOUCH_WITNESSES'>): WitnessingConfig | undefined {
  const text = env.VOUCH_WITNESSES;
  if (text === undefined || text.trim() === '') return undefined;
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `var VOUCH_WITNESSES is not JSON: ${(e as Error).message}`, [{ path: '/VOUCH_WITNESSES', message: 'not JSON' }]);
  }
  try {
    return parseWitnessingConfig(doc);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `var VOUCH_WITNESSES: ${(e as Error).message}`, (e as ConfigError).issues ?? []);
  }
}

/** One witness's progress on a log, as the object records it (the Worker's /metrics reads it). */
export interface WitnessProgress {
  witness: string;
  logSize: number;
  cosignedSize: number;
  /** Submissions this witness did not cosign (down, timed out, refused), since the log object was made. */
  failures: number;
  error?: string;
}

const STATUS_SCHEMA = [
  'CREATE TABLE IF NOT EXISTS worker_witness_status (origin TEXT NOT NULL, witness TEXT NOT NULL, log_size INTEGER NOT NULL, cosigned_size INTEGER NOT NULL, failures INTEGER NOT NULL, error TEXT, PRIMARY KEY (origin, witness))',
  // The tenant whose log this object holds: an alarm arrives with no request to name it.
  'CREATE TABLE IF NOT EXISTS worker_witness_tenant (one INTEGER PRIMARY KEY CHECK (one = 1), tenant TEXT NOT NULL)',
];

export interface WitnessRecord {
  tenant(): string | undefined;
  setTenant(tenant: string): void;
  record(origin: string, s: WitnessStatus): void;
  progress(origin: string): WitnessProgress[];
}

export function openWitnessRecord(storage: DurableSqlStorage): WitnessRecord {
  for (const s of STATUS_SCHEMA) storage.sql.exec(s);
  const rows = (sql: string, ...b: unknown[]) => storage.sql.exec(sql, ...b).toArray();
  return {
    tenant: () => rows('SELECT tenant FROM worker_witness_tenant')[0]?.tenant as string | undefined,
    setTenant: (tenant) => void storage.sql.exec('INSERT INTO worker_witness_tenant (one, tenant) VALUES (1, ?) ON CONFLICT(one) DO UPDATE SET tenant = excluded.tenant', tenant),
    record: (origin, s) =>
      void storage.sql.exec(
        'INSERT INTO worker_witness_status (origin, witness, log_size, cosigned_size, failures, error) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(origin, witness) DO UPDATE SET log_size = excluded.log_size, cosigned_size = excluded.cosigned_size, failures = failures + excluded.failures, error = excluded.error',
        origin, s.witness, s.logSize, s.cosignedSize, s.ok ? 0 : 1, s.ok ? null : (s.error ?? 'failed'),
      ),
    progress: (origin) =>
      rows('SELECT witness, log_size, cosigned_size, failures, error FROM worker_witness_status WHERE origin = ? ORDER BY witness', origin).map((r) => ({
        witness: r.witness as string,
        logSize: Number(r.log_size),
        cosignedSize: Number(r.cosigned_size),
        failures: Number(r.failures),
        ...(r.error !== null && { error: r.error as string }),
      })),
  };
}

/**
 * One submission round, run from the log object's alarm: every witness is asked to cosign the
 * newest checkpoint (retries and timeouts as configured). Answers whether a witness is still
 * behind or failed, so the object sets its alarm again after the interval.
 */
export async function witnessRound(o: { tenant: string; port: LogPort; config: WitnessingConfig; cosigs: CosignatureStore; record: WitnessRecord; line: (tenant: string, s: WitnessStatus) => void }): Promise<{ behind: boolean }> {
  let behind = false;
  const submitter = new WitnessSubmitter({
    source: o.port,
    witnesses: o.config.witnesses,
    store: o.cosigs,
    timeoutMs: o.config.timeoutMs,
    retries: o.config.retries,
    nowSeconds: () => Math.floor(Date.now() / 1000),
    onStatus: (s) => {
      if (!s.ok || s.cosignedSize < s.logSize) behind = true;
      o.record.record(o.port.origin, s);
      o.line(o.tenant, s);
    },
  });
  await submitter.tick();
  await submitter.idle();
  return { behind };
}

/** The status log lines of Node's service (witness/status-lines.ts), to Workers Logs. */
export const workerWitnessLines = () => witnessStatusLines((l) => console.log(JSON.stringify(l)));
