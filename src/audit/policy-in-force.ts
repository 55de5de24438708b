// The policy in force at start: the log's newest `policy` entry when it is pinned, rebuilt from
// documents that must hash to their digests; and the recording of a policy put in force (its
// documents and, when it changed, a `policy` entry). Node's service, CLI and gateway use it.
import { activatePolicy, type Activated } from '../activate.js';
import { canonicalBytes, digestBytes, parseJson, utf8, type Digest } from '../canonical/index.js';
import { ConfigError, StoreError } from '../errors.js';
import type { StateStores } from '../interceptors/builtin/types.js';
import type { Json } from '../interceptors/types.js';
import { resolveConfigDocument } from '../policy/index.js';
import type { LogPort } from '../store/log-port.js';
import type { LogStore } from '../store/port.js';
import { newestPolicyRecord, recordPolicyEntry, type PolicyStore } from './policy-record.js';

const inconsistent = (m: string) => new StoreError('ERR_STORE_INCONSISTENT', m);

/** A stored document, refused unless its bytes hash to the digest it is stored under. */
function documentOf(store: Pick<LogStore, 'document'>, digest: Digest, what: string): Uint8Array {
  const doc = store.document(digest);
  if (!doc) throw new ConfigError('ERR_CONFIG', `the ${what} document ${digest} of the policy in force is not stored`);
  if (digestBytes(doc.bytes) !== digest) throw inconsistent(`the ${what} document stored as ${digest} hashes to ${digestBytes(doc.bytes)}: it was rewritten`);
  return doc.bytes;
}

/** The pinned policy (newest policy entry, when pinned), rebuilt from its documents; undefined when none is pinned. */
export async function loadPinnedPolicy(store: PolicyStore & Pick<LogStore, 'document'>, state: StateStores, remote: 'connect' | 'offline' = 'connect'): Promise<Activated | undefined> {
  const rec = newestPolicyRecord(store);
  if (!rec?.pinned) return undefined;
  const chainBytes = documentOf(store, rec.chain, 'chain');
  documentOf(store, rec.policySet, 'policy-set');
  const resolved = resolveConfigDocument(parseJson(utf8.decode(chainBytes)) as Json);
  if (resolved.chainDigest !== rec.chain || resolved.policyDigest !== rec.policySet) throw inconsistent(`the stored chain document does not rebuild to the pinned ${rec.chain}`);
  return activatePolicy(resolved, { state, remote });
}

export interface RecordOptions {
  /** true: an explicit activation, pinned for the next start. Unset: keep the newest entry's pin if the policy is the same. */
  pinned?: boolean;
  /** The gateway's mirror chain (same policy set), recorded in the same entry. */
  mirror?: Activated;
  /** Who put it in force (recorded as the entry's `by`): a principal, `cli:<user>`, `start-up`. */
  by?: string;
}

/**
 * Record the policy in force: documents by digest, and a `policy` entry unless the newest one
 * already names this policy (and pin). Returns the new entry's seq, or undefined when none was needed.
 */
export async function recordActivation(port: LogPort, store: PolicyStore, policy: Activated, time: string, opts: RecordOptions = {}): Promise<number | undefined> {
  await port.putDocument('chain', policy.chainDigest, canonicalBytes(policy.resolved.resolved));
  await port.putDocument('policy', policy.policyDigest, canonicalBytes(policy.resolved.policySource));
  if (opts.mirror) await port.putDocument('chain', opts.mirror.chainDigest, canonicalBytes(opts.mirror.resolved.resolved));
  const names = { chain: policy.chainDigest, policySet: policy.policyDigest, engines: policy.engines, ...(opts.mirror && { mirror: opts.mirror.chainDigest }), ...(opts.by !== undefined && { by: opts.by }) };
  return recordPolicyEntry(port, store, names, time, opts.pinned);
}
