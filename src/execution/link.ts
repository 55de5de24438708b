// The link from what ran to what was authorized: the decision entry an execution names by seq,
// read back from the same tenant's log, and the intent payload it allowed. Anything that is not
// an allowed request decision of this tenant, made for this principal, is no authorization (and
// says why): a seq is a handle any caller can name, and a link reads the intent back.
import { isDigest, parseJson, utf8, type Digest } from '../canonical/index.js';
// decodeEntry's contract at bundle speed (one parse, one canonical check): read on every gateway call.
import { readEntry } from '../log/fast-entry.js';
import { readDecisionEntry, type DecisionEntry } from '../entries/index.js';

/** What the link needs of a tenant log (the store's LogPort has it). */
export interface LogReader {
  entry(seq: number): Promise<Uint8Array | undefined>;
  payload(digest: Digest): Promise<Uint8Array | undefined>;
}

export type Authorization =
  | { ok: true; seq: number; entry: DecisionEntry; intentDigest: Digest; intent: unknown; intentAvailable: boolean }
  | { ok: false; seq: number | null; reason: string };

/** Who follows the link: the authenticated caller, and whom it acts for (delegate role, checked before). */
export interface LinkOwner {
  tenant: string;
  principal: string;
  onBehalfOf?: string;
}

/**
 * Load decision `seq` and its intent. Not an authorization: an unknown seq, an entry of another
 * type or tenant, a deny, a response-phase decision, a decision of another principal (unless the
 * caller acts on that principal's behalf). Another principal of the tenant would otherwise read
 * the intent back through drift: its paths and values. An intent payload that was erased still
 * authorizes (its digest is in the entry), but drift cannot be computed: intentAvailable false.
 */
export async function loadAuthorization(log: LogReader, seq: number | null, owner: LinkOwner): Promise<Authorization> {
  const { tenant } = owner;
  if (seq === null) return { ok: false, seq, reason: 'no authorization named' };
  if (!Number.isSafeInteger(seq) || seq < 0) return { ok: false, seq: null, reason: 'authorization is not a sequence number' };
  const bytes = await log.entry(seq);
  if (!bytes) return { ok: false, seq, reason: `no entry ${seq} in this log` };
  let decoded;
  try {
    decoded = readEntry(bytes);
  } catch {
    return { ok: false, seq, reason: `entry ${seq} does not decode` };
  }
  if (decoded.type !== 'decision') return { ok: false, seq, reason: `entry ${seq} is a ${decoded.type} entry, not a decision` };
  let entry: DecisionEntry;
  try {
    entry = readDecisionEntry(decoded);
  } catch {
    return { ok: false, seq, reason: `entry ${seq} is not a well-formed decision entry` };
  }
  // Each tenant has its own log; the tenant field is checked as well, as defence in depth.
  if (entry.tenant !== tenant) return { ok: false, seq, reason: `decision ${seq} belongs to another tenant` };
  // The same words whatever the other principal is: the reason names no one.
  if (entry.principal !== undefined && entry.principal !== owner.principal && entry.principal !== owner.onBehalfOf) return { ok: false, seq, reason: `decision ${seq} was made for another principal` };
  if (entry.phase !== undefined && entry.phase !== 'request') return { ok: false, seq, reason: `decision ${seq} is a ${String(entry.phase)}-phase decision, not a request authorization` };
  if (entry.decision.effect !== 'allow') return { ok: false, seq, reason: `decision ${seq} was a deny` };
  const intentDigest = entry.intent?.digest;
  if (!isDigest(intentDigest)) return { ok: false, seq, reason: `decision ${seq} records no intent digest` };
  const intentBytes = await log.payload(intentDigest);
  if (!intentBytes) return { ok: true, seq, entry, intentDigest, intent: undefined, intentAvailable: false };
  return { ok: true, seq, entry, intentDigest, intent: parseJson(utf8.decode(intentBytes)), intentAvailable: true };
}
