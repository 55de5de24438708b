// A time-stamp as it travels in receipts and bundles, and its offline check: the stamped checkpoint
// (its note exactly as the log signed it, opened with the log's keys), a proof tying it to what is
// verified (an entry's inclusion, or a bundle tree's consistency), and the token checked against the
// TSA certificate the auditor pins. Without a pinned certificate the token is "not checked", never INVALID.
import type { Certificate } from 'pkijs';
import { fromBase64, fromHex, utf8 } from '../canonical/index.js';
import { openSignedCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { checkExtends } from '../log/consistency.js';
import { verifyInclusion } from '../log/merkle.js';
import type { NoteVerifier } from '../log/note.js';
import type { TimestampEvidence } from './evidence-format.js';
import { readToken, verifyTimestampToken } from './token.js';

export interface TimestampCheck {
  name: 'timestamp';
  ok: boolean;
  /** verified: the token holds against the pinned TSA certificate; not checked: no certificate pinned. */
  status: 'verified' | 'not checked' | 'invalid';
  detail: string;
  tsa?: string;
  genTime?: string;
  /** Size of the stamped checkpoint. */
  size?: number;
}


export interface CheckTimestampOptions {
  /** The log's trusted keys (the same the receipt or bundle is checked with). */
  verifiers: NoteVerifier[];
  classicalOk?: boolean;
  /** The TSA certificate(s) the auditor pins (`--tsa-cert`); none: the token is not checked. */
  pinned?: Certificate[];
  /** What the stamp must cover: an entry (index, leaf hash) of this log, or a tree it must be a prefix of. */
  covers: { origin: string; entry: { index: number; leaf: Uint8Array } } | { origin: string; tree: Checkpoint };
}

/** Check one stamp; never throws: a failure is an INVALID check naming the reason. */
export async function checkTimestamp(ev: TimestampEvidence, o: CheckTimestampOptions): Promise<TimestampCheck> {
  const invalid = (detail: string): TimestampCheck => ({ name: 'timestamp', ok: false, status: 'invalid', detail });
  let cp: Checkpoint;
  try {
    cp = openSignedCheckpoint(ev.checkpoint, o.verifiers, { classicalOk: o.classicalOk }).checkpoint;
  } catch (e) {
    return invalid(`the stamped checkpoint does not verify with the log's keys: ${(e as Error).message}`);
  }
  if (cp.origin !== o.covers.origin) return invalid(`the stamped checkpoint is of log ${cp.origin}, not ${o.covers.origin}`);
  const proof = ev.proof.map(fromHex);
  let what: string;
  if ('entry' in o.covers) {
    const { index, leaf } = o.covers.entry;
    if (index >= cp.size || !verifyInclusion(index, cp.size, leaf, proof, cp.root)) return invalid(`entry ${index} is not proven in the stamped tree of size ${cp.size}`);
    what = `entry ${index} existed by then (stamped checkpoint size ${cp.size})`;
  } else {
    const r = checkExtends(cp, o.covers.tree, proof);
    if (!r.ok) return invalid(`the stamped checkpoint of size ${cp.size} is not a prefix of the tree of size ${o.covers.tree.size}: ${r.message}`);
    what = `the first ${cp.size} entries existed by then`;
  }
  const token = fromBase64(ev.token);
  const data = utf8.encode(ev.checkpoint);
  if (!o.pinned || o.pinned.length === 0) {
    let said = '';
    try {
      const t = readToken(token);
      said = ` (it says ${t.tsa} at ${t.genTime})`;
    } catch {
      said = ' (it does not parse)';
    }
    return { name: 'timestamp', ok: true, status: 'not checked', size: cp.size, detail: `a TSA token over checkpoint size ${cp.size}${said}: not checked (give --tsa-cert FILE, the TSA certificate you trust)` };
  }
  try {
    const f = await verifyTimestampToken(token, data, o.pinned);
    return { name: 'timestamp', ok: true, status: 'verified', tsa: f.tsa, genTime: f.genTime, size: cp.size, detail: `time-stamped by ${f.tsa} at ${f.genTime}: ${what}` };
  } catch (e) {
    return invalid(`TSA token: ${(e as Error).message}`);
  }
}
