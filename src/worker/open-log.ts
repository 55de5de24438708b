// Opening a tenant's log in its object: migrations, origin check, the secret set its key history
// names, the Appender, and the witnessing, payload retention and R2 archive the vars configure.
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import type { R2Bucket } from '@cloudflare/workers-types/index.ts';
import { StoreError } from '../errors.js';
import { Appender, type NoteSigner } from '../log/index.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { openDurableObjectStore } from '../store/durable-object.js';
import type { LogStore } from '../store/port.js';
import type { TenantKeys } from '../store/tenant-keys.js';
import { keyNameOf, originOf, type WorkerEnv } from './env.js';
import { noteSignersOf, readKeySets, type WorkerKeySet } from './keys.js';
import { openLogKeys } from './log-keys.js';
import { WORKER_MIGRATIONS } from './migrations.js';
import { withCosignatures } from '../witness/attach.js';
import type { WitnessingConfig } from '../witness/config.js';
import type { CosignatureStore } from '../witness/cosig-store.js';
import { openDurableCosignatureStore } from '../witness/durable-cosig-store.js';
import { openWitnessRecord, witnessingOf, type WitnessRecord } from './witnessing.js';
import type { RetentionPolicy } from '../audit/index.js';
import { retentionOf } from './retention.js';
import { archiveBucketOf, openArchiveRecord, type ArchiveRecord } from './archiving.js';

type Storage = DurableObjectState['storage'];

/** Least time between checkpoint signatures under load on a Worker (noble, unmeasurable there). */
const NOBLE_INTERVAL_MS = 25;

/**
 * Sign after yielding once to the event loop. Signing is synchronous CPU work in the object, so
 * without a yield no other request could be delivered while a batch is in flight; with it, the
 * appends that arrive meanwhile queue up and the next batch (one signature) covers them all.
 */
function yieldingSigner(s: NoteSigner): NoteSigner {
  return {
    ...s,
    sign: async (m) => {
      await new Promise((r) => setTimeout(r, 0));
      return s.sign(m);
    },
  };
}

export interface OpenLog {
  tenant: string;
  origin: string;
  store: LogStore;
  port: LogPort;
  appender: Appender;
  keys: TenantKeys;
  /** The current secrets, while the previous ones still sign this log (its handover is due). */
  handoverTo?: WorkerKeySet;
  /** With witnessing: the port whose checkpoints carry their cosignatures (what the RPC serves), the record and the status. */
  witness?: { served: LogPort; cosigs: CosignatureStore; record: WitnessRecord; config: WitnessingConfig };
  /** With payload retention (VOUCH_RETENTION): the policy its passes follow. */
  retention?: RetentionPolicy;
  /** With the R2 tile archive (VOUCH_ARCHIVE): the bucket and what was written to it. */
  archive?: { bucket: R2Bucket; record: ArchiveRecord };
}

export const signing = (signers: NoteSigner[]) => [yieldingSigner(signers[0]), ...signers.slice(1)];

/** The tenant's log, opened: migrations, origin check, key history checked and the tree recomputed before any signing. */
export function openTenantLog(storage: Storage, env: WorkerEnv, tenant: string): OpenLog {
  const legacy = keyNameOf(env);
  const origin = originOf(legacy, tenant);
  const store = openDurableObjectStore(storage, WORKER_MIGRATIONS);
  const recorded = store.meta('origin');
  if (recorded === undefined) store.setMeta('origin', origin);
  else if (recorded !== origin) throw new StoreError('ERR_STORE_INCONSISTENT', `log object was created for origin ${recorded}, not ${origin}`);
  // The secret set the log's history says signs now (a new log: under its origin; a log made
  // before, under the deployment's key name until its first handover), else a coded refusal.
  const opened = openLogKeys(store, origin, legacy, readKeySets(env));
  // Pacing: ML-DSA-65 here is noble in the isolate, and a deployed Worker's clock does not move
  // during pure computation, so the appender cannot measure it to stretch the interval (pacing.ts
  // signShare): the 25 ms noble's 7-12 ms signatures get elsewhere is set outright.
  const appender = Appender.open({ origin, storage: store, signers: signing(noteSignersOf(opened.set, opened.keys.name)), verifiers: opened.keys.verifiers, minIntervalMs: NOBLE_INTERVAL_MS });
  const port = logPortOf(origin, store, appender);
  const witness = witnessingFor(storage, env, tenant, port);
  const retention = retentionOf(env);
  const bucket = archiveBucketOf(env);
  const archive = bucket && { bucket, record: openArchiveRecord(storage) };
  return { tenant, origin, store, appender, port, keys: opened.keys, ...(opened.handoverTo && { handoverTo: opened.handoverTo }), ...(witness && { witness }), ...(retention && { retention }), ...(archive && { archive }) };
}

function witnessingFor(storage: Storage, env: WorkerEnv, tenant: string, port: LogPort): OpenLog['witness'] {
  const config = witnessingOf(env);
  if (!config) return undefined;
  const cosigs = openDurableCosignatureStore(storage);
  const record = openWitnessRecord(storage);
  if (record.tenant() !== tenant) record.setTenant(tenant);
  return { served: withCosignatures(port, cosigs), cosigs, record, config };
}
