// The chain config document (one YAML or JSON file): which interceptors run, with what
// settings, under which policy set. Parsed by config.ts; the resolved form inlines the policy text.
import type { Json } from '../canonical/index.js';
import type { Compat, Direction, Hook, Mode, PriorityHint } from '../protocol/index.js';
import type { PolicySource } from './types.js';
import type { TimestampingConfig } from '../timestamp/config.js';

export type { TimestampingConfig };

/** Declaration fields that override a builtin's (or a remote's) defaults, normalized. */
export interface DeclarationOverrides {
  /** From `hooks`, or from the flat `events` + `phase` (request | response | both). */
  hooks?: Hook[];
  /** `enforce` on input is read as `active`. */
  mode?: Mode;
  failOpen?: boolean;
  priorityHint?: PriorityHint;
  description?: string;
  /** `optional: true`: a caller's `interceptors` list may leave it out. Default false: it always runs. */
  optional?: boolean;
  /** Whether it counts as an authorization interceptor (default: the built-in's own flag; remotes false). */
  authorizes?: boolean;
  /** Narrows the protocol versions it runs under (SEP-1763 seed `compat`); replaces the interceptor's own range. */
  compat?: Compat;
}

export interface BuiltinDeclaration extends DeclarationOverrides {
  name: string;
  /** Builtin factory name (pii-redactor, cedar-policy, ...); its config is checked by the factory. */
  use: string;
  config?: Json;
}

export interface RemoteDeclaration extends DeclarationOverrides {
  name: string;
  remote: {
    /** The interceptor server's MCP endpoint (http or https). */
    url: string;
    /** Which of its interceptors to merge into the chain; all when absent. */
    names?: string[];
    /** Which MCP era to speak to it (REMOTE_ERAS); `auto` (probe with server/discover, else 2025) when absent. */
    era?: RemoteEra;
  };
}

/**
 * The MCP era vouch speaks to an interceptor server: `auto` probes with 2026-07-28's
 * `server/discover` and falls back to the 2025 `initialize` handshake; `legacy` is 2025 only;
 * `2026-07-28` is that revision only (a 2025-only server fails the connect).
 */
export type RemoteEra = 'auto' | 'legacy' | '2026-07-28';
export const REMOTE_ERAS: readonly RemoteEra[] = ['auto', 'legacy', '2026-07-28'];

export type InterceptorDeclaration = BuiltinDeclaration | RemoteDeclaration;

/** Policy text by file (paths relative to the config file), or inline (the resolved form). */
export type PolicyConfig = { files: string[]; schema?: string } | { inline: PolicySource };

export interface VouchConfig {
  version: 1;
  directions?: { request?: Direction; response?: Direction };
  timeouts?: { chainMs?: number; interceptorMs?: number; enricherMs?: number };
  policies?: PolicyConfig;
  interceptors: InterceptorDeclaration[];
  servers?: { toolMap?: Record<string, string> };
  /** Drift classification rules: opaque here, read by the execution side. */
  drift?: Json;
  /** Tool definition pins (`pinning`, `pins`): opaque here, read by mcp/tool-pins.ts. */
  tools?: Json;
  /** Custom event names this config declares, beyond the MCP and SEP events (protocol/events.ts). */
  events?: string[];
  /** Traffic that no active authorization interceptor covers and that is allowed anyway (recorded). */
  uncovered?: UncoveredRule[];
  /**
   * The operator's: URL prefixes of the interceptor servers a policy posted at run time (or pinned
   * in a tenant's log) may name (policy/remote-allow.ts). Read from the start-up file only.
   */
  remoteInterceptors?: { allow: string[] };
  /**
   * The operator's: RFC 3161 time-stamping of checkpoints (timestamp/). Read from the start-up
   * file only; a posted policy carrying it is refused.
   */
  timestamping?: TimestampingConfig;
}

/** `uncovered[i]`: these events (or `*`), in this phase, may pass without an authorization interceptor. */
export interface UncoveredRule {
  events: string[];
  phase: 'request' | 'response' | 'both';
}

export function isRemoteDeclaration(d: InterceptorDeclaration): d is RemoteDeclaration {
  return 'remote' in d;
}
