// The SEP-2624 declaration vocabulary (with the SEP-1763 seed extras): what an interceptor says
// it is and hooks. Shared by the config (policy) and the chain (interceptors), so it sits below both.

export type InterceptorType = 'validation' | 'mutation' | 'observability';
export type Phase = 'request' | 'response';
export type Mode = 'active' | 'audit';
export type Severity = 'error' | 'warning' | 'info';
export type Direction = 'sending' | 'receiving';

export interface Hook {
  events: string[];
  phase: Phase;
}

export type PriorityHint = number | { request?: number; response?: number };

/** The MCP protocol versions (YYYY-MM-DD, compared as strings) an interceptor works with (SEP-1763 seed). */
export interface Compat {
  minProtocol?: string;
  maxProtocol?: string;
}

/** Normalized descriptor as it goes on the wire in interceptors/list. */
export interface InterceptorDescriptor {
  name: string;
  type: InterceptorType;
  hooks: Hook[];
  /** The interceptor's own version (SEP-1763 seed), e.g. "0.1.0". */
  version?: string;
  description?: string;
  mode?: 'audit'; // omitted when active (the default)
  failOpen?: true; // omitted when false (the default)
  priorityHint?: PriorityHint; // omitted when 0
  compat?: Compat; // omitted when it names no bound
  configSchema?: Record<string, unknown>; // JSON Schema of the interceptor's `config`
  /** vouch's extension of the declaration: `{"io.vouch/role": "enricher"}` (docs/enrichers.md); omitted otherwise. */
  _meta?: { [ROLE_META]: Role };
}

/** The `_meta` key of a declaration that narrows a mutation's contract (a vouch extension of SEP-2624). */
export const ROLE_META = 'io.vouch/role';
/** An enricher: a response-phase mutation that may only add, and never blocks (docs/enrichers.md). */
export type Role = 'enricher';
