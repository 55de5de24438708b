// Offline receipt verification as a named checklist (sigstore style): every step is reported,
// and a receipt is valid only when every step passed. No I/O, no Node-only imports: the same
// module runs in the CLI, the service and the browser.
import { bytesEqual, fromBase64, fromHex, toHex } from '../canonical/index.js';
import { openSignedCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { decodeEntry, type Entry } from '../log/entry.js';
import { hashLeaf, verifyInclusion } from '../log/merkle.js';
import { describeSignature, type NoteVerifier, type PqRequirement, type VerifiedSignature } from '../log/note.js';
import type { PostQuantumAlg } from '../crypto/index.js';
import { parseReceipt, type Receipt } from './format.js';

export type CheckName = 'format' | 'entry' | 'leaf-hash' | 'index' | 'checkpoint-signature' | 'origin' | 'inclusion' | 'caller-signature';

export interface Check {
  name: CheckName;
  ok: boolean;
  detail: string;
}

export interface ReceiptReport {
  ok: boolean;
  checks: Check[];
  entry?: Entry;
  checkpoint?: Checkpoint;
  /** Names of the trusted keys whose signatures verified. */
  verifiedBy: string[];
  /** The checkpoint signatures that verified: key name, algorithm, key id. */
  signatures: VerifiedSignature[];
  /** Accepted on classical signatures alone (only with `classicalOk`). */
  classicalOnly: boolean;
  /** The post-quantum signature that met the requirement (ML-DSA-65 when both verified). */
  postQuantum?: PostQuantumAlg;
}

export interface VerifyReceiptOptions {
  /** Trusted checkpoint keys (vkeys or JWKS already parsed). */
  verifiers: NoteVerifier[];
  /** When set, the log the receipt must come from. */
  origin?: string;
  /** Checks the caller's co-signature, when the receipt carries one (see caller-signature.ts). */
  verifyCaller?: (receipt: Receipt, entry: Entry) => Check;
  /** Accept a checkpoint whose only valid signatures are classical (`--classical-ok`); the report says so. */
  classicalOk?: boolean;
  /** `ML-DSA-65`: only an ML-DSA-65 signature meets the post-quantum requirement (`--require-pq mldsa65`). */
  requirePq?: PqRequirement;
}

export function verifyReceipt(input: unknown, opts: VerifyReceiptOptions): ReceiptReport {
  const checks: Check[] = [];
  const pass = (name: CheckName, detail: string) => checks.push({ name, ok: true, detail });
  const fail = (name: CheckName, detail: string) => checks.push({ name, ok: false, detail });
  const report = (extra: Partial<ReceiptReport> = {}): ReceiptReport => ({ ok: checks.length > 0 && checks.every((c) => c.ok), checks, verifiedBy: [], signatures: [], classicalOnly: false, ...extra });

  let r: Receipt;
  try {
    r = parseReceipt(input);
    pass('format', 'receipt v1 is well formed');
  } catch (e) {
    fail('format', (e as Error).message);
    return report();
  }
  const bytes = fromBase64(r.entry);
  let entry: Entry | undefined;
  try {
    entry = decodeEntry(bytes);
    pass('entry', `canonical entry v1, ${entry.type} #${entry.seq} of ${entry.log}`);
  } catch (e) {
    fail('entry', (e as Error).message);
  }
  const leaf = hashLeaf(bytes);
  if (toHex(leaf) === r.leafHash) pass('leaf-hash', 'leaf hash = SHA-256(0x00 || entry bytes)');
  else fail('leaf-hash', 'leaf hash does not match the entry bytes');
  if (entry) {
    if (entry.seq === r.index) pass('index', `index ${r.index} matches the entry's seq`);
    else fail('index', `index ${r.index} but the entry says seq ${entry.seq}`);
  }
  let checkpoint: Checkpoint | undefined;
  let signatures: VerifiedSignature[] = [];
  let classicalOnly = false;
  let postQuantum: PostQuantumAlg | undefined;
  try {
    ({ checkpoint, signatures, classicalOnly, postQuantum } = openSignedCheckpoint(r.checkpoint, opts.verifiers, { classicalOk: opts.classicalOk, requirePq: opts.requirePq }));
    const by = signatures.map(describeSignature).join(', ');
    pass('checkpoint-signature', `checkpoint ${checkpoint.origin} size ${checkpoint.size} signed by ${by}${classicalOnly ? ' (classical signatures only, accepted by --classical-ok)' : `; post-quantum: ${postQuantum}`}`);
  } catch (e) {
    fail('checkpoint-signature', (e as Error).message);
  }
  if (checkpoint) {
    const problems: string[] = [];
    if (entry && entry.log !== checkpoint.origin) problems.push(`entry is of log ${entry.log}, checkpoint of ${checkpoint.origin}`);
    if (opts.origin !== undefined && checkpoint.origin !== opts.origin) problems.push(`expected log ${opts.origin}, receipt is from ${checkpoint.origin}`);
    if (problems.length) fail('origin', problems.join('; '));
    else pass('origin', `log ${checkpoint.origin}`);
    const ok = verifyInclusion(r.index, checkpoint.size, leaf, r.proof.map(fromHex), checkpoint.root);
    if (ok) pass('inclusion', `entry ${r.index} is in the tree of size ${checkpoint.size} (RFC 9162 inclusion proof)`);
    else fail('inclusion', `inclusion proof does not lead to the signed root of size ${checkpoint.size}`);
  }
  if (r.callerSignature && entry) {
    checks.push(opts.verifyCaller ? opts.verifyCaller(r, entry) : { name: 'caller-signature', ok: false, detail: 'receipt carries a caller signature but no caller key was given to check it' });
  }
  return report({ entry, checkpoint, verifiedBy: [...new Set(signatures.map((x) => x.name))], signatures, classicalOnly, ...(postQuantum && { postQuantum }) });
}

/** True when two checkpoints of one log claim the same size with different roots. */
export function sameSizeFork(a: Checkpoint, b: Checkpoint): boolean {
  return a.origin === b.origin && a.size === b.size && !bytesEqual(a.root, b.root);
}
