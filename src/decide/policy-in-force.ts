// The policy in force at start: the log's newest `policy` entry when it is pinned, rebuilt from
// documents that must hash to their digests; and the recording of a policy put in force (its
// documents and, when it changed, a `policy` entry). Portable: every adapter and the Worker's object use it.
import { activatePolicy, type Activated } from './activate.js';
import { canonicalBytes, digestBytes, parseJson, utf8, type Digest } from '../canonical/index.js';
import { ConfigError, StoreError } from '../errors.js';
import type { StateStores } from '../interceptors/builtin/types.js';
import type { Json } from '../interceptors/types.js';
import { cedarVersion, resolveConfigDocument, type RemoteAllowList } from '../policy/index.js';
import type { LogWriter } from '../log/index.js';
import { newestPolicyRecord, recordPolicyEntry, type PolicyStore } from './policy-record.js';

const inconsistent = (m: string) => new StoreError('ERR_STORE_INCONSISTENT', m);

/** Stored chain and policy-set documents by digest (never erased: replay needs them). */
export interface DocumentStore {
  document(digest: Digest): { bytes: Uint8Array } | undefined;
}

/** What recording a policy needs of a log: the append, and a place for its documents (every log port fits). */
export interface PolicyLog extends LogWriter {
  putDocument(kind: 'chain' | 'policy', digest: Digest, bytes: Uint8Array): Promise<void>;
}

/** A stored document, refused unless its bytes hash to the digest it is stored under. */
function documentOf(store: DocumentStore, digest: Digest, what: string): Uint8Array {
  const doc = store.document(digest);
  if (!doc) throw new ConfigError('ERR_CONFIG', `the ${what} document ${digest} of the policy in force is not stored`);
  if (digestBytes(doc.bytes) !== digest) throw inconsistent(`the ${what} document stored as ${digest} hashes to ${digestBytes(doc.bytes)}: it was rewritten`);
  return doc.bytes;
}

/**
 * The pinned policy (newest policy entry, when pinned), rebuilt from its documents; undefined when
 * none is pinned. `remoteAllow`: the operator's list its remote interceptor servers must be on
 * (a pin may come from a tenant admin's POST /v1/policy).
 */
export async function loadPinnedPolicy(store: PolicyStore & DocumentStore, state: StateStores, remote: 'connect' | 'offline' = 'connect', remoteAllow?: RemoteAllowList): Promise<Activated | undefined> {
  const rec = newestPolicyRecord(store);
  if (!rec?.pinned) return undefined;
  const chainBytes = documentOf(store, rec.chain, 'chain');
  documentOf(store, rec.policySet, 'policy-set');
  // The entry says this engine validated the policy set when it was put in force: not again (policy-set.ts).
  const sameEngine = (rec.engines as { cedar?: unknown } | undefined)?.cedar === cedarVersion;
  const resolved = resolveConfigDocument(parseJson(utf8.decode(chainBytes)) as Json, { validated: (d) => sameEngine && d === rec.policySet });
  if (resolved.chainDigest !== rec.chain || resolved.policyDigest !== rec.policySet) throw inconsistent(`the stored chain document does not rebuild to the pinned ${rec.chain}`);
  return activatePolicy(resolved, { state, remote, remoteAllow });
}

export interface RecordOptions {
  /** true: an explicit activation, pinned for the next start. Unset: keep the newest entry's pin if the policy is the same. */
  pinned?: boolean;
  /** The gateway's mirror chain (same policy set), recorded in the same entry. */
  mirror?: Activated;
  /** Who put it in force (recorded as the entry's `by`): a principal, `cli:<user>`, `start-up`. */
  by?: string;
}

/** A policy put in force, as documents: what any deployment (Node, the Worker's object) records. */
export interface PolicyDocuments {
  chain: Digest;
  policySet: Digest;
  /** Canonical bytes of the resolved config document and of the policy source. */
  chainBytes: Uint8Array;
  policyBytes: Uint8Array;
  engines: Json;
  /** The gateway's mirror chain (same policy set) and its document. */
  mirror?: { chain: Digest; chainBytes: Uint8Array };
  /** Who put it in force (recorded as the entry's `by`): a principal, `cli:<user>`, `start-up`. */
  by?: string;
}

/** The documents of an activated policy (and of a gateway's mirror chain). */
export function policyDocumentsOf(policy: Activated, opts: Pick<RecordOptions, 'mirror' | 'by'> = {}): PolicyDocuments {
  return {
    chain: policy.chainDigest,
    policySet: policy.policyDigest,
    chainBytes: canonicalBytes(policy.resolved.resolved),
    policyBytes: canonicalBytes(policy.resolved.policySource),
    engines: policy.engines,
    ...(opts.mirror && { mirror: { chain: opts.mirror.chainDigest, chainBytes: canonicalBytes(opts.mirror.resolved.resolved) } }),
    ...(opts.by !== undefined && { by: opts.by }),
  };
}

/**
 * Record a policy put in force: its documents by digest (refused unless the bytes hash to the
 * digests they are stored under), and a `policy` entry unless the newest one already names this
 * policy (and pin). Returns the new entry's seq, or undefined when none was needed.
 */
export async function recordPolicyDocuments(port: PolicyLog, store: PolicyStore, d: PolicyDocuments, time: string, pinned?: boolean): Promise<number | undefined> {
  if (digestBytes(d.chainBytes) !== d.chain || digestBytes(d.policyBytes) !== d.policySet || (d.mirror && digestBytes(d.mirror.chainBytes) !== d.mirror.chain)) {
    throw inconsistent('policy documents do not match their digests');
  }
  await port.putDocument('chain', d.chain, d.chainBytes);
  await port.putDocument('policy', d.policySet, d.policyBytes);
  if (d.mirror) await port.putDocument('chain', d.mirror.chain, d.mirror.chainBytes);
  const names = { chain: d.chain, policySet: d.policySet, engines: d.engines, ...(d.mirror && { mirror: d.mirror.chain }), ...(d.by !== undefined && { by: d.by }) };
  return recordPolicyEntry(port, store, names, time, pinned);
}

/** Record an activated policy (recordPolicyDocuments over its documents). */
export async function recordActivation(port: PolicyLog, store: PolicyStore, policy: Activated, time: string, opts: RecordOptions = {}): Promise<number | undefined> {
  return recordPolicyDocuments(port, store, policyDocumentsOf(policy, opts), time, opts.pinned);
}
