// The `policy` entry: the rules put in force (chain and policy-set digests, engines), pinned or
// not, by whom. The newest one is the record of the policy in force (decide/policy-record.ts).
import type { Digest, Json } from '../canonical/index.js';
import type { Entry, EntryBody } from '../log/index.js';
import { checkerFor, compact, type FieldSpec } from './_check.js';

export type PolicyAction = 'activate' | 'unpin';

export interface PolicyFields {
  time: string;
  chain: Digest;
  policySet: Digest;
  engines: Json;
  /** Absent in entries written before actions were recorded. */
  action?: PolicyAction;
  /** Explicitly activated (wins over the config file at the next start); absent in entries before pins were recorded. */
  pinned?: boolean;
  /** A gateway's mirror chain (same policy set). */
  mirror?: Digest;
  /** Who put it in force: a principal, `cli:<user>`, `start-up`. */
  by?: string;
}

export type PolicyEntry = PolicyFields & { type: 'policy'; v: 1; log: string; seq: number; prev: string };

export const POLICY_FIELDS: FieldSpec<PolicyFields> = { time: 'required', chain: 'required', policySet: 'required', engines: 'required', action: 'optional', pinned: 'optional', mirror: 'optional', by: 'optional' };

export function policyEntryBody(f: PolicyFields): EntryBody {
  return compact({ time: f.time, chain: f.chain, policySet: f.policySet, engines: f.engines, action: f.action, pinned: f.pinned, mirror: f.mirror, by: f.by, type: 'policy' as const });
}

export function readPolicyEntry(e: Entry): PolicyEntry {
  const c = checkerFor(e, 'policy');
  c.digest('chain');
  c.digest('policySet');
  c.digest('mirror', true);
  c.oneOf('action', ['activate', 'unpin'] as const, true);
  c.bool('pinned');
  c.str('by');
  c.done('policy');
  return e as unknown as PolicyEntry;
}
