// Rebuild the policy a decision was made under from its stored documents, found by digest:
// the chain document (the resolved config, policy text inlined) and the policy-set document.
// Both are re-hashed before use, so a swapped document can never replay to `match`.
import { activatePolicy, type Activated } from '../decide/index.js';
import { digestBytes, parseJson, utf8, type Digest } from '../canonical/index.js';
import { publicMessage } from '../errors.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import type { Json } from '../interceptors/types.js';
import { isRemoteDeclaration, resolveConfigDocument } from '../policy/index.js';

export type UnreplayableReason =
  | 'payload erased'
  | 'payload missing'
  | 'payload digest mismatch'
  | 'input rejected'
  | 'chain document missing'
  | 'chain document invalid'
  | 'policy document missing'
  | 'policy document mismatch'
  | 'engine version absent'
  | 'remote interceptor'
  | 'malformed entry';

export type Rebuilt = { ok: true; policy: Activated; hasRemote: boolean } | { ok: false; reason: UnreplayableReason; detail: string };

export interface DocumentSource {
  /** The exact stored bytes of a chain or policy-set document, or undefined. */
  document(digest: Digest): Promise<Uint8Array | undefined>;
}

/** Distinct policies in one log are few; the bound keeps memory flat on a hostile bundle. */
const MAX_CACHED = 64;

/** Rebuilt policies by (chain, policy set) digest; failures are cached too, with their reason. */
export class PolicyCache {
  private readonly cache = new Map<string, Promise<Rebuilt>>();

  constructor(private readonly source: DocumentSource) {}

  get(chain: Digest, policySet: Digest): Promise<Rebuilt> {
    const key = `${chain} ${policySet}`;
    let hit = this.cache.get(key);
    if (!hit) {
      if (this.cache.size >= MAX_CACHED) void this.evictOldest();
      hit = rebuild(this.source, chain, policySet);
      this.cache.set(key, hit);
    }
    return hit;
  }

  async close(): Promise<void> {
    const all = [...this.cache.values()];
    this.cache.clear();
    for (const p of all) {
      const r = await p;
      if (r.ok) await r.policy.close();
    }
  }

  private async evictOldest(): Promise<void> {
    const [key, p] = this.cache.entries().next().value as [string, Promise<Rebuilt>];
    this.cache.delete(key);
    const r = await p;
    if (r.ok) await r.policy.close();
  }
}

async function rebuild(source: DocumentSource, chain: Digest, policySet: Digest): Promise<Rebuilt> {
  const chainBytes = await source.document(chain);
  if (!chainBytes) return { ok: false, reason: 'chain document missing', detail: `no chain document ${chain}` };
  if (digestBytes(chainBytes) !== chain) return { ok: false, reason: 'chain document invalid', detail: `the document stored as ${chain} hashes to ${digestBytes(chainBytes)}` };
  const policyBytes = await source.document(policySet);
  if (!policyBytes) return { ok: false, reason: 'policy document missing', detail: `no policy-set document ${policySet}` };
  if (digestBytes(policyBytes) !== policySet) return { ok: false, reason: 'policy document mismatch', detail: `the document stored as ${policySet} hashes to ${digestBytes(policyBytes)}` };
  let resolved;
  try {
    resolved = resolveConfigDocument(parseJson(utf8.decode(chainBytes)) as Json);
  } catch (e) {
    return { ok: false, reason: 'chain document invalid', detail: publicMessage(e) };
  }
  // The chain document inlines the policy text: it must be the policy set the entry names.
  if (resolved.chainDigest !== chain) return { ok: false, reason: 'chain document invalid', detail: `the chain document does not rebuild to ${chain}` };
  if (resolved.policyDigest !== policySet) return { ok: false, reason: 'policy document mismatch', detail: `chain ${chain} inlines policy set ${resolved.policyDigest}, the entry names ${policySet}` };
  try {
    // Fresh state stores: replay never calls prepare(), so they stay empty; remote servers are not called.
    // Built-in configs are not re-checked against their JSON Schemas (ajv generates code, which
    // workerd forbids, so replay on Workers failed here): the chain was checked when a `policy`
    // entry activated it, decisions under any other chain are `activation` findings, and each
    // built-in's own parser still refuses a config it cannot run.
    const policy = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline', configSchemas: 'prebuilt' });
    return { ok: true, policy, hasRemote: resolved.config.interceptors.some(isRemoteDeclaration) };
  } catch (e) {
    return { ok: false, reason: 'chain document invalid', detail: publicMessage(e) };
  }
}
