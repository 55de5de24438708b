// One vouch decision entry as one audit record of the Tamper-Evident Audit Record Contract (SEP-3004,
// audit-record-contract/1 §2.1-§2.2): the core, the chain's verdict in the registered
// `runtime-security` extension, and an unprotected `vouch` link to the signed entry. Portable.
import { sha256, toHex, type Digest } from '../canonical/index.js';
import { InputError } from '../errors.js';
import type { DecisionEntry } from '../entries/index.js';
import { normalizeProtectedString } from './sep3004-canonical.js';

export const OUTCOMES = ['allowed', 'denied', 'deferred', 'error'] as const;

/** §2.2 registrations: REQUIRED and OPTIONAL fields, closed vocabularies, value types. */
export interface ExtensionRegistration {
  required: readonly string[];
  optional: readonly string[];
  /** Closed value vocabularies (§2.2): a value outside one is non-conforming. */
  enums: Record<string, readonly string[]>;
  /** Value type per field: 'string' (runtime-security's all-strings rule), 'boolean', or any of string/bool/null. */
  types: Record<string, 'string' | 'boolean' | 'string-or-null' | 'boolean-or-null'>;
}

export const EXTENSION_REGISTRY: Readonly<Record<string, ExtensionRegistration>> = {
  'caller-governance': {
    required: ['purpose_declared'],
    optional: ['session_id', 'invoked_by_principal_id', 'flagged', 'sources_touched', 'sensitivity_encountered', 'output_disposition', 'human_actor_id'],
    enums: {},
    // "All values ... strings, except flagged, a boolean; an OPTIONAL field MAY instead carry null."
    types: {
      purpose_declared: 'string', session_id: 'string-or-null', invoked_by_principal_id: 'string-or-null', flagged: 'boolean-or-null', sources_touched: 'string-or-null',
      sensitivity_encountered: 'string-or-null', output_disposition: 'string-or-null', human_actor_id: 'string-or-null',
    },
  },
  'runtime-security': {
    required: ['drift_status', 'severity', 'quarantine_decision', 'policy_id'],
    optional: ['evidence_hash'],
    enums: { drift_status: ['none', 'observed', 'confirmed'], severity: ['info', 'low', 'medium', 'high'], quarantine_decision: ['release', 'hold', 'quarantine'] },
    types: { drift_status: 'string', severity: 'string', quarantine_decision: 'string', policy_id: 'string', evidence_hash: 'string' },
  },
  // Named by reference (ATSA, MCP PR #2809); its field set lives in that text.
  'admission-control': { required: [], optional: [], enums: {}, types: {} },
};

/** The event_type vocabulary vouch declares (§2.9): `tool_call`, else `<MCP event>:<phase>`. */
export const EVENT_TYPE_RE = /^(tool_call|[^\s:]+:(request|response))$/;
/** The principal_id of a decision whose caller was not authenticated (dev mode): opaque, and no name a token can carry. */
export const NO_PRINCIPAL = 'urn:vouch:unauthenticated';

export interface Sep3004Record {
  event_id: string;
  occurred_at: string;
  principal_id: string;
  event_type: string;
  tool_name: string | null;
  outcome: (typeof OUTCOMES)[number];
  extensions: Record<string, Record<string, string | boolean | null>>;
  previous_hash: string | null;
  event_hash: string;
  /** Not protected by the record's hash (§2.1: unknown top-level fields are ignored); protected by vouch's log, via evidence_hash. */
  vouch: VouchLink;
}

export interface VouchLink {
  origin: string;
  seq: number;
  /** RFC 9162 leaf hash, hex: what the receipt's inclusion proof proves. */
  leaf_hash: string;
  /** How to fetch the receipt that proves the entry: the CLI command, and the REST path. */
  receipt: { command: string; url: string };
  /** The chain's result as the entry records it (vouch's own terms; the extension carries the SEP's). */
  chain: { effect: 'allow' | 'deny'; status?: string; abortedAt?: unknown };
  /** The decision's input payload: its digest, and the erasure entry that removed it, if one did. */
  input: { digest: Digest; erased?: { seq: number } } | { rejected: true };
}

const iso = (time: string, seq: number): string => {
  const ms = Date.parse(time);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(time)) {
    throw new InputError('ERR_NOT_CANONICAL', `entry ${seq}: time ${JSON.stringify(time)} is not RFC 3339`, [{ path: `/${seq}/time`, message: 'not RFC 3339' }]);
  }
  // §2.3: UTC, millisecond precision, literal Z (Date.toISOString()).
  return new Date(ms).toISOString();
};

export function eventTypeOf(event: string, phase: string): string {
  return event === 'tools/call' && phase === 'request' ? 'tool_call' : `${event}:${phase}`;
}

export interface RecordContext {
  origin: string;
  /** The exact entry bytes (evidence_hash commits to them) and their leaf hash. */
  bytes: Uint8Array;
  leaf: Uint8Array;
  /** digest -> seq of the erasure entry that removed it. */
  erasedBy: ReadonlyMap<string, number>;
  /** The CLI command and REST path that fetch the receipt of `seq`. */
  receipt: (seq: number) => { command: string; url: string };
}

/**
 * The record of one decision, unsealed (no previous_hash or event_hash yet). Every protected string
 * is checked against §2.3 here, so an entry the form cannot carry fails the export by name
 * (ERR_NOT_CANONICAL) instead of yielding a record no verifier accepts.
 */
export function recordOfDecision(d: DecisionEntry, ctx: RecordContext): Omit<Sep3004Record, 'previous_hash' | 'event_hash'> {
  const deny = d.decision.effect === 'deny';
  const hex = (digest: Digest) => digest.slice('sha256:'.length);
  const core = {
    event_id: `${ctx.origin}#${d.seq}`,
    occurred_at: iso(d.time, d.seq),
    principal_id: d.principal ?? NO_PRINCIPAL,
    event_type: eventTypeOf(d.event, d.phase),
    tool_name: d.target ?? null,
    // §2.1.1: the enforcement result. A fail-closed deny (an interceptor that threw) is still a deny.
    outcome: deny ? ('denied' as const) : ('allowed' as const),
  };
  for (const [k, v] of Object.entries(core)) if (typeof v === 'string') normalizeProtectedString(v, `/${d.seq}/${k}`);
  const chain: VouchLink['chain'] = { effect: d.decision.effect };
  if (typeof d.decision.status === 'string') chain.status = d.decision.status;
  if (d.decision.abortedAt !== undefined && d.decision.abortedAt !== null) chain.abortedAt = d.decision.abortedAt;
  const input: VouchLink['input'] = 'digest' in d.input
    ? { digest: d.input.digest, ...(ctx.erasedBy.has(d.input.digest) && { erased: { seq: ctx.erasedBy.get(d.input.digest)! } }) }
    : { rejected: true };
  return {
    ...core,
    extensions: {
      'runtime-security': {
        // A decision is made before anything runs: no tool-surface drift is evidenced by it.
        drift_status: 'none',
        severity: deny ? 'high' : 'info',
        // §2.2 outcome binding: a terminal block is `quarantine` with outcome `denied`.
        quarantine_decision: deny ? 'quarantine' : 'release',
        // <scope>/<name>@<revision>: the log's origin, the policy set, its digest.
        policy_id: `${ctx.origin}/policy-set@${hex(d.policy.policySet)}`,
        // Commits the record to the exact signed entry bytes (chain digest, results, everything).
        evidence_hash: `sha256:${toHex(sha256(ctx.bytes))}`,
      },
    },
    vouch: { origin: ctx.origin, seq: d.seq, leaf_hash: toHex(ctx.leaf), receipt: ctx.receipt(d.seq), chain, input },
  };
}
