// The Node service's start options and the handle startServer returns (node-server.ts).
import type { Activated } from '../decide/index.js';
import type { DataDir } from '../store/node.js';
import type { AuthConfig } from './auth.js';
import type { Limits } from './deps.js';
import type { TenantPoolStats } from './tenant-pool.js';

export interface ServeOptions {
  data: string;
  host?: string;
  port?: number;
  /** Chain config file; default <data>/vouch.yaml, else the bundled example. */
  config?: string;
  auth?: AuthConfig;
  limits?: Partial<Limits>;
  keyName?: string;
  /** Caller co-signing keys, `{tenant: JWKS}` (vouch serve --callers FILE); none when absent. */
  callers?: unknown;
  /** Every request must carry a caller signature by a key in `callers` (else a recorded deny). */
  requireCallerSignature?: boolean;
  /** Web origins besides the service's own that may call it (`--allow-origin`, repeated); auth's `allowOrigins` add to them. */
  allowOrigins?: string[];
  logLine?: (line: Record<string, unknown>) => void;
  /** Sign and publish a checkpoint after a log has been idle this long with new entries (default 60 s; 0: never). Also signed on clean shutdown. */
  idleCheckpointMs?: number;
  /** Entries per page of the background leaf audit (default 2048). */
  auditPage?: number;
  /** Milliseconds after a log opens before its background audit starts (default 1000): start-up and the first decisions go first. */
  auditDelayMs?: number;
  /** OTLP/HTTP collector base URL (`--otlp`): each durable entry exported as a span and a log record. Off when absent. */
  otlp?: string;
  /** Payload retention file (`--retention FILE`, audit/retention.ts); default <data>/retention.json when present. Off when neither. */
  retention?: string;
  /** Witness config file (`--witnesses FILE`, witness/config.ts); default <data>/witnesses.json when present. Off when neither. */
  witnesses?: string;
  /** Tests: how often the time-stamping cadence is looked at, and the first retry delay (timestamp/stamper.ts). */
  timestampTiming?: { tickMs?: number; backoffMs?: number };
  /** Tenant logs kept open at most (`--max-open-tenants`, default 256): the least recently used idle one closes first. */
  maxOpenTenants?: number;
  /** Close a tenant log unused this long, ms (`--tenant-idle`, default 300 s; 0: only the cap closes logs). */
  tenantIdleMs?: number;
  /** Tile archive root (`--archive DIR`, default <data>/archive; false: none): sealed tiles written after commits (docs/archive.md). */
  archive?: string | false;
  /** Milliseconds after a commit before the archive syncs (default 1000). */
  archiveDelayMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  keyId: string;
  /** The ML-DSA-65 backend checkpoints are signed with (crypto/mldsa-backend.ts). */
  mldsa: string;
  dataDir: DataDir;
  policy: Activated;
  /** The config file the service started from (`policy` is built from it). */
  configPath: string;
  /** How many witnesses the witness config names (0 when none: a cut of the log's end goes unseen). */
  witnesses: number;
  /** The policy in force for a tenant (opening its log and recording the start-up policy first). */
  policyOf(tenant: string): Promise<Activated>;
  /** The tenant logs opened at start (tenantsOpenedAtStart); others open at their first use. */
  openedAtStart: string[];
  /** Open tenant logs now, and opens and closes since start (reopens included). */
  tenantStats(): TenantPoolStats;
  /** Close the tenant logs idle for the idle interval now (the timer does it on its own). */
  closeIdleTenants(): Promise<void>;
  close(): Promise<void>;
}
