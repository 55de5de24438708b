// Public types of the policy module: Cedar policy sets and their authorization requests.
// Kept apart from the engine so interceptors can depend on the shape, not on cedar-wasm.
import type { Digest, Json } from '../canonical/index.js';

export interface EntityRef {
  type: string;
  id: string;
}

export interface AuthzRequest {
  principal: EntityRef;
  action: EntityRef;
  resource: EntityRef;
  /** Arbitrary JSON; converted to a Cedar record (see cedar-values.ts for the rules). */
  context: Json;
  /** Groups the principal is `in` (e.g. Role::"admin"). */
  principalParents?: EntityRef[];
  /** Attributes of the resource entity (e.g. {name} of a Tool), so policies can match `like "delete_*"`. */
  resourceAttrs?: { [k: string]: Json };
}

export interface AuthzResult {
  decision: 'allow' | 'deny';
  /** Ids of the policies that determined the decision (empty on default deny). */
  reasons: string[];
  /** Evaluation errors; any error makes the decision deny. */
  errors: string[];
}

/** The Cedar text and optional Cedar JSON schema a policy set was built from. */
export interface PolicySource {
  policies: string;
  schema?: Json;
}

/** A parsed, validated policy set. Parsed once at load, reused for every call. */
export interface PolicySet {
  /** digestJson({policies, schema}) of the source document. */
  readonly digest: Digest;
  readonly source: PolicySource;
  /** Ids of the policies in the set, in source order (policy0, policy1, ... or @id). */
  readonly policyIds: readonly string[];
  /** Role ids the policy text names (`Role::"x"`), sorted: the candidates of a default deny's hint (deny-explain.ts). */
  readonly roles?: readonly string[];
  authorize(req: AuthzRequest): AuthzResult;
}
