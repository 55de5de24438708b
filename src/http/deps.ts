// What createApp needs, as ports: the same app runs on Node (SQLite data directory) and on
// Workers (a Durable Object per tenant log). Everything async, so a remote log fits.
import type { TimestampReads } from '../timestamp/store.js';
import type { Jwks, PublicKeyEntry } from '../crypto/index.js';
import type { ActivePolicy } from '../decide/index.js';
import type { CoseSigner } from '../receipt/index.js';
import type { ProtectedResource } from './oauth-metadata.js';
import type { Metrics } from './metrics.js';

/**
 * `operator`: the whole data directory (key rotation, every tenant's metrics). A tenant's roles
 * (`admin` included) act on the caller's own tenant only; no tenant token should carry `operator`.
 */
export type Role = 'enforce' | 'audit' | 'admin' | 'delegate' | 'operator';
export const ROLES: readonly Role[] = ['enforce', 'audit', 'admin', 'delegate', 'operator'];

export interface Caller {
  principal: string;
  tenant: string;
  /** vouch's own roles: what the routes check (requireRole). */
  roles: Role[];
  /**
   * Every role the caller holds, vouch's and any other a token grants (e.g. `tool-user` from the
   * scope `mcp:tools`): the principal's groups for policy (`principal in Role::"tool-user"`).
   * Absent: `roles`.
   */
  policyRoles?: string[];
}

/** The roles a decision is made with: every role the caller holds (Caller.policyRoles). */
export function rolesForPolicy(caller: Caller): string[] {
  return caller.policyRoles ?? caller.roles;
}

/** Turns an Authorization header into a caller, or throws AccessError ERR_UNAUTHENTICATED. */
export type Authenticator = (authorization: string | undefined) => Promise<Caller>;

/** One tenant's log as the app sees it (store/log-port.ts builds it over a store + appender). */
export type { LogPort as TenantLogPort } from '../store/log-port.js';
import type { LogPort as TenantLogPort } from '../store/log-port.js';

export type Health = { ok: true; notice?: string } | { ok: false; code: string; reason: string };

export interface Limits {
  /** Largest request body, bytes. */
  bodyBytes: number;
}

export const DEFAULT_LIMITS: Limits = { bodyBytes: 1024 * 1024 };

export interface AppDeps {
  logs(tenant: string): Promise<TenantLogPort>;
  /** RFC 3161 stamps of checkpoints (timestamp/store.ts), by log origin; absent when time-stamping is off. */
  timestamps?: TimestampReads;
  /** The policy in force for a tenant (hot-swappable: read per request). */
  policy(tenant: string): Promise<ActivePolicy>;
  /** Undefined = development mode: every request is the local operator (loopback only). */
  authenticate?: Authenticator;
  /** OAuth resource server metadata (RFC 9728): served at /.well-known/oauth-protected-resource, named in each 401. */
  protectedResource?: ProtectedResource;
  /** The published key set (all logs); `of`: one tenant log's key history only (its bundles, which name no other tenant). */
  keys: {
    jwks: Jwks;
    vkeys: string[];
    keyId: string;
    of?(tenant: string): { jwks: Jwks; vkeys: string[] } | Promise<{ jwks: Jwks; vkeys: string[] }>;
    /** The published set when it is read per request (Workers: a registry object); absent: `jwks` and `vkeys`. */
    published?(): Promise<{ jwks: Jwks; vkeys: string[] }>;
  };
  clock: { now(): Date; monotonic(): number };
  limits?: Partial<Limits>;
  /** Web origins besides the service's own that may call it (CORS); every other Origin gets 403. */
  allowOrigins?: readonly string[];
  /** The ML-DSA-65 implementation checkpoints are signed with ("native (node:crypto, OpenSSL 3.5.4)", "noble (...)"), shown by /healthz. */
  mldsa?: string;
  /**
   * Readiness for /healthz: ok only when decisions can be made as configured (keys match the logs,
   * logs opened, checked, signing; interceptor servers answering). Absent: always ok. `notice`:
   * something the operator should know that does not stop decisions (a key handover under way).
   */
  health?(): Health | Promise<Health>;
  /** Where structured operational log lines go (never payloads, tokens or secrets). */
  logLine?: (line: Record<string, unknown>) => void;
  /** Run before /metrics renders: the Worker reads its log objects' witness progress into the counters here. */
  beforeMetrics?(metrics: Metrics): Promise<void>;
  /**
   * Signs interceptor/invoke results on request (`_meta["io.vouch/sign"]: true`) under `context`
   * (crypto/context.ts; never the notes' empty one); keyId is the JWKS kid.
   */
  signResult?(bytes: Uint8Array, context: Uint8Array): Promise<{ alg: string; keyId: string; signature: Uint8Array }>;
  /**
   * The log keys that sign COSE receipts (RFC 9942) of a tenant's entries, and the key names its
   * checkpoints are signed under; a key signs only the root of a checkpoint it signed. Absent:
   * GET /v1/entries/SEQ/receipt.cose is not served (ERR_NOT_FOUND says so).
   */
  coseSigners?(tenant: string): { keyNames: string[]; signers: CoseSigner[] };
  /** The keys a tenant's callers co-sign requests with (JWK kid = the keyId they sign under); none when absent. */
  callerKeys?(tenant: string): Promise<PublicKeyEntry[]>;
  /** Co-signing required (`vouch serve --require-caller-signature`): an unsigned request is a recorded deny. */
  requireCallerSignature?: boolean;
  /**
   * A server attached read-only (`vouch serve --read-only`): the refusal (ERR_READ_ONLY) for a
   * request that would write, before anything else is done with it; undefined for a read.
   */
  readOnly?(method: string, path: string): Error | undefined;
  /** Called once an entry is durable (telemetry export, e.g. OpenTelemetry): must not throw or block. */
  observe?(e: { tenant: string; seq: number; leaf: Uint8Array; bytes: Uint8Array }): void;
}
