// Does the log a receipt came from still tell the same story? Given a newer signed checkpoint
// (and the consistency proof the service hands out), check that it extends the receipt's
// checkpoint. Two signed checkpoints that cannot both be true are kept as evidence: a log that
// showed different histories to different readers (a fork) is caught by whoever holds both.
import { fromHex } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { openSignedCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { checkExtends } from '../log/consistency.js';
import { describeSignature, type NoteVerifier, type OpenNoteOptions } from '../log/note.js';

/** What `GET /v1/proofs/consistency?from=<size>` returns, or a bare signed checkpoint note. */
export interface NewerCheckpoint {
  note: string;
  proof: Uint8Array[];
  /** The size the proof starts from, when the file says. */
  from?: number;
  to?: number;
  /** False for a bare note: there is no proof to check a different size with. */
  hasProof: boolean;
}

export interface NewerCheck {
  name: 'newer-checkpoint' | 'consistency';
  ok: boolean;
  detail: string;
}

export interface ForkEvidence {
  reason: string;
  older: string;
  newer: string;
}

const MAX_PROOF = 126; // two paths of at most 63 hashes each (RFC 9162 2.1.4.1)

/** `file`: how messages name the input (the CLI gives its path). */
export function parseNewerCheckpoint(text: string, file = 'the newer checkpoint file'): NewerCheckpoint {
  const t = text.trimStart();
  // Empty is most often a download that failed (curl -o on an error): say so, not "does not verify".
  if (t === '') throw new InputError('ERR_INPUT', `${file} is empty: fetch it again (GET /v1/proofs/consistency?from=SIZE, SIZE the receipt's tree size; or GET /v1/checkpoint), or point at the signed note itself (DATA/checkpoints/TENANT.note)`);
  if (!t.startsWith('{')) return { note: text, proof: [], hasProof: false };
  let doc: unknown;
  try {
    doc = JSON.parse(t);
  } catch {
    throw new InputError('ERR_JSON_PARSE', 'newer checkpoint file looks like JSON but does not parse');
  }
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  // What GET /v1/checkpoint answers ({origin, size, root, checkpoint}): the bare note it carries.
  if (o.proof === undefined && typeof o.checkpoint === 'string') return { note: o.checkpoint, proof: [], hasProof: false };
  if (o.proof === undefined && o.checkpoint === null) throw new InputError('ERR_INPUT', 'the newer checkpoint file holds no checkpoint (the log had none signed yet)', [{ path: '/checkpoint', message: 'null' }]);
  const issues: { path: string; message: string }[] = [];
  if (typeof o.checkpoint !== 'string') issues.push({ path: '/checkpoint', message: 'must be the signed checkpoint note' });
  if (!Array.isArray(o.proof) || o.proof.length > MAX_PROOF || o.proof.some((h) => typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h))) issues.push({ path: '/proof', message: `must be an array of at most ${MAX_PROOF} hex hashes` });
  for (const k of ['from', 'to'] as const) if (o[k] !== undefined && (!Number.isSafeInteger(o[k]) || (o[k] as number) < 0)) issues.push({ path: `/${k}`, message: 'must be a non-negative integer' });
  if (issues.length) throw new InputError('ERR_INPUT', `malformed consistency file: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { note: o.checkpoint as string, proof: (o.proof as string[]).map(fromHex), from: o.from as number | undefined, to: o.to as number | undefined, hasProof: true };
}

/** What GET /v1/proofs/consistency answers for the receipt's size: where to fetch the proof from. */
export const proofHint = (size: number) => `give a consistency proof from GET /v1/proofs/consistency?from=${size}`;

/**
 * `older` must be the receipt's checkpoint, already verified; `verifiers` are those trusted for `newer.note`.
 * `extends`: the newer checkpoint, when it verified and extends the older one. `notChecked`: why the
 * two trees could not be compared (a proof missing, or one for other sizes): a missing input is
 * "not checked", never a failed check. Only what the inputs prove wrong fails: a checkpoint that is
 * not trusted, two roots for one size, a proof that does not verify, a newer file that shrinks.
 */
export function checkNewerCheckpoint(olderNote: string, older: Checkpoint, newer: NewerCheckpoint, verifiers: NoteVerifier[], opts: Pick<OpenNoteOptions, 'classicalOk' | 'requirePq'> = {}): { checks: NewerCheck[]; evidence?: ForkEvidence; extends?: Checkpoint; notChecked?: string } {
  const checks: NewerCheck[] = [];
  let cp: Checkpoint;
  try {
    // The same note rule as the receipt's own checkpoint: post-quantum required unless classicalOk.
    const opened = openSignedCheckpoint(newer.note, verifiers, { classicalOk: opts.classicalOk, requirePq: opts.requirePq });
    cp = opened.checkpoint;
    const by = opened.signatures.map(describeSignature).join(', ');
    checks.push({ name: 'newer-checkpoint', ok: true, detail: `newer checkpoint ${cp.origin} size ${cp.size} signed by ${by}${opened.classicalOnly ? ' (classical signatures only, accepted by --classical-ok)' : ''}` });
  } catch (e) {
    // An unsigned or foreign checkpoint proves nothing about this log, either way.
    checks.push({ name: 'newer-checkpoint', ok: false, detail: (e as Error).message });
    return { checks };
  }
  const fail = (detail: string) => checks.push({ name: 'consistency', ok: false, detail });
  const judged = (r: ReturnType<typeof checkExtends>, what: string) => {
    if (r.ok) return { checks: [...checks, { name: 'consistency' as const, ok: true, detail: what }] };
    fail(r.message);
    // Both checkpoints are signed by trusted keys and cannot both be true: that is the evidence.
    if (r.reason === 'fork' || r.reason === 'proof') return { checks, evidence: { reason: r.message, older: olderNote, newer: newer.note } };
    return { checks };
  };
  if (cp.origin !== older.origin) return judged(checkExtends(older, cp, []), '');
  // One size: the roots must be equal, no proof needed (a proof for other sizes is not about these two).
  if (cp.size === older.size) {
    const proof = newer.hasProof && (newer.from ?? older.size) === older.size ? newer.proof : [];
    const r = judged(checkExtends(older, cp, proof), `the checkpoint given is the receipt's tree of size ${older.size} (same root)`);
    return r.checks.every((c) => c.ok) ? { ...r, extends: cp } : r;
  }
  const fromTo = (from: number, to: number) => (newer.from === undefined || newer.from === from) && (newer.to === undefined || newer.to === to);
  if (cp.size > older.size) {
    // The empty tree is a prefix of every tree: nothing to prove (checkExtends checks its root).
    if (older.size === 0 || (newer.hasProof && fromTo(older.size, cp.size))) {
      const r = judged(checkExtends(older, cp, newer.proof), `the log of size ${cp.size} extends the receipt's tree of size ${older.size} (RFC 9162 consistency proof)`);
      return r.checks.every((c) => c.ok) ? { ...r, extends: cp } : r;
    }
    const why = !newer.hasProof
      ? `the checkpoint given (size ${cp.size}) carries no proof that it extends the receipt's (size ${older.size})`
      : `the proof given is from size ${newer.from ?? '?'} to ${newer.to ?? '?'}, not from the receipt's size ${older.size} to the checkpoint's ${cp.size}`;
    return { checks, notChecked: `${proofHint(older.size)} (${why})` };
  }
  // A smaller checkpoint: an older one, or the log's end was cut after the receipt (nothing in a
  // checkpoint says when it was signed). A file that claims to extend the receipt's tree (its proof
  // starts at the receipt's size) and is smaller says the log shrank.
  if (newer.hasProof && newer.from === older.size) return judged(checkExtends(older, cp, newer.proof), '');
  // With a proof from its size to the receipt's, it must be a prefix of the receipt's tree: if
  // not, the receipt's log was rewritten below a size it had signed (cut and grown again).
  if (newer.hasProof && newer.from === cp.size && (newer.to === undefined || newer.to === older.size)) {
    const r = judged(checkExtends(cp, older, newer.proof), `the receipt's tree of size ${older.size} extends the checkpoint given (size ${cp.size}, RFC 9162 consistency proof)`);
    if (!r.checks.every((c) => c.ok)) return r;
    return { ...r, notChecked: `${proofHint(older.size)}, with a checkpoint newer than the receipt's (the one given, size ${cp.size}, is older than the receipt's, size ${older.size})` };
  }
  return { checks, notChecked: `${proofHint(older.size)}, with a checkpoint newer than the receipt's (the one given, size ${cp.size}, is smaller than the receipt's, size ${older.size}: older, or the log was cut after the receipt; a proof from ${cp.size} to ${older.size} with it checks that it is a prefix of the receipt's tree)` };
}
