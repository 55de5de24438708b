// The Worker's bindings (wrangler.toml): the log object namespace, the signing key secrets and
// the plain vars. Read once per isolate; a missing or malformed secret is a ConfigError.
import type { DurableObjectNamespace, R2Bucket } from '@cloudflare/workers-types/index.ts';
import { logOriginOf } from '../log/index.js';

export interface WorkerEnv {
  /** One Durable Object per tenant log (class VouchLog), found by idFromName(tenant). */
  VOUCH_LOG: DurableObjectNamespace;
  /** The live state of the stateful built-ins (class VouchState): counters, session taint, tool schemas. */
  VOUCH_STATE: DurableObjectNamespace;
  /** Secret: the ML-DSA-65 key in key text form (src/crypto/key-text.ts). Never a file. */
  VOUCH_SIGNING_KEY?: string;
  /** Secret, optional: an Ed25519 co-signing key in key text form, for today's note tools. */
  VOUCH_ED25519_KEY?: string;
  /** Secret, optional: the ML-DSA-44 key (c2sp.org/tlog-checkpoint's timestamped 0x06 line, what public witnesses read). */
  VOUCH_MLDSA44_KEY?: string;
  /**
   * Secrets, only during a key handover (docs/workers-keys.md): the outgoing keys. A log they still
   * sign is handed over to VOUCH_SIGNING_KEY/VOUCH_ED25519_KEY on its next activation.
   */
  VOUCH_SIGNING_KEY_PREVIOUS?: string;
  VOUCH_ED25519_KEY_PREVIOUS?: string;
  VOUCH_MLDSA44_KEY_PREVIOUS?: string;
  /** Var: the key name in signed notes and the origin prefix (`<name>/<tenant>`). */
  VOUCH_KEY_NAME?: string;
  /** Var, optional: the bearer-token config as JSON ({jwks, issuer, audience, ...}); absent = development mode (loopback hosts only). */
  VOUCH_AUTH?: string;
  /**
   * Var, optional: the witness config as JSON, what Node's `--witnesses FILE` holds
   * ({"witnesses": [{"url", "vkeys"}], "timeoutMs", "retries", "intervalMs"}); each tenant log
   * object submits its checkpoints from its alarm. Absent: no witnessing.
   */
  VOUCH_WITNESSES?: string;
  /**
   * Var, optional: payload retention as JSON, what Node's `--retention FILE` holds
   * ({"payloadDays", "tenants", "everyMinutes"}); each tenant log object runs a pass from its alarm
   * every everyMinutes (docs/retention.md). Absent: payloads are kept until erased on request.
   */
  VOUCH_RETENTION?: string;
  /**
   * Var, optional: an OTLP/HTTP collector base URL (Node's `--otlp`): each entry the Worker appends
   * is exported as a span and a log record (JSON, to <URL>/v1/traces and /v1/logs) after the answer.
   */
  VOUCH_OTLP?: string;
  /**
   * R2 binding, optional: the tile archive (docs/workers-archive.md). Each tenant log object's alarm
   * writes its log's tiles, entry bundles and checkpoint under `<tenant>/` in the C2SP tlog-tiles
   * layout of Node's archive directory, each tile once. Absent: no archive.
   */
  VOUCH_ARCHIVE?: R2Bucket;
  /** Var, optional: caller co-signing keys, the JSON of Node's `--callers FILE` ({"<tenant>": JWKS}). */
  VOUCH_CALLERS?: string;
  /** Var, optional: "true" = every request must carry a caller signature by a VOUCH_CALLERS key (Node's --require-caller-signature). */
  VOUCH_REQUIRE_CALLER_SIGNATURE?: string;
}

export const DEFAULT_WORKER_KEY_NAME = 'vouch.local';
export { TENANT_RE } from '../log/index.js';

export function keyNameOf(env: WorkerEnv): string {
  return env.VOUCH_KEY_NAME || DEFAULT_WORKER_KEY_NAME;
}

/** The origin of a tenant's log (log/origin.ts: the same rule as Node's data directory). */
export const originOf = logOriginOf;
