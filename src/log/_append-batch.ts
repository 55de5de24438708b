// The Appender's batching: the entries one commit of queued appends becomes on top of the log's
// tip (a bad or out-of-policy append refused alone, taking no seq), and held batches merged.
import { toHex } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { encodeEntry, type EntryBody } from './entry.js';
import type { Durable } from './appending.js';
import { appendLeaf, hashLeaf, type CompactRange } from './merkle.js';
import type { NoteSigner } from './note.js';
import type { Attachment, EntryBatch } from './storage.js';
import { nextHeads, type Heads } from './heads.js';
import { decisionPair, pairsInForce } from './activation-check.js';

export interface Pending {
  body: EntryBody;
  attachments: Attachment[];
  /** Its caller waits for the signed checkpoint (append), not only for the commit: pacing signs sooner. */
  signedWanted?: boolean;
  /** false: nobody reads `signed` (DurableOptions): no proof is made, `signed` is NOT_FOLLOWED. */
  follow?: boolean;
  /** A key rotation (key-history.ts): committed alone, signed by the current keys, then these sign. */
  rotateTo?: NoteSigner[];
  /** With rotateTo: the incoming keys' commit key (commits after the handover are tagged under it). */
  rotateKey?: Uint8Array;
  resolve: (d: Durable) => void;
  reject: (e: unknown) => void;
}

/** Where the log ends: its tree, the next entry's prev, and the state its newest entry commits to. */
export interface Tip {
  range: CompactRange;
  prev: string;
  heads: Heads;
  inForce: string[] | undefined;
}

/** The batch `items` become after `tip`, the items in it and the tip it ends at; each item left out is rejected here. */
export function buildBatch(origin: string, tip: Tip, items: Pending[]): { batch: EntryBatch; accepted: Pending[]; tip: Tip } {
  let { range, prev, heads, inForce } = tip;
  const batch: EntryBatch = { entries: [], nodes: [], payloads: [] };
  const accepted: Pending[] = [];
  for (const item of items) {
    let bytes: Uint8Array;
    const body = item.body;
    // A decision made under rules that are no longer in force (it was still running when a new
    // policy entry was written) is refused, not recorded: every decision in the log is under
    // the newest activation before it, which verifiers check.
    const pair = body.type === 'decision' && inForce ? decisionPair(body) : undefined;
    if (pair && !inForce!.includes(`${pair.chain} ${pair.policySet}`)) {
      item.reject(new StoreError('ERR_POLICY_CHANGED', 'the policy in force changed while this request was decided: nothing was recorded or allowed; send it again'));
      continue;
    }
    const nextState = nextHeads(heads, body.type, range.size);
    try {
      bytes = encodeEntry(origin, range.size, prev, body, nextState);
    } catch (e) {
      item.reject(e); // a bad body fails alone; it takes no seq
      continue;
    }
    heads = nextState;
    inForce = pairsInForce(body) ?? inForce;
    const leaf = hashLeaf(bytes);
    const next = appendLeaf(range, leaf);
    batch.entries.push({ seq: range.size, bytes, leaf });
    batch.nodes.push(...next.created);
    accepted.push(item);
    batch.payloads!.push(...item.attachments);
    range = next.range;
    prev = toHex(leaf);
  }
  return { batch, accepted, tip: { range, prev, heads, inForce } };
}

/** Batches held for a store that commits entries with their checkpoint, as one write. */
export function mergeBatches(held: EntryBatch[]): EntryBatch {
  if (held.length === 1) return held[0];
  return { entries: held.flatMap((h) => h.entries), nodes: held.flatMap((h) => h.nodes), payloads: held.flatMap((h) => h.payloads ?? []) };
}
