// Which trusted witnesses cosigned a checkpoint note, and when: the verifier's side of
// tlog-cosignature. Lines from unknown keys (name and key id not both matching) are ignored; a
// known key's line that fails rejects the note (signed-note: "clients SHOULD reject the whole
// note"). A witness is counted once however many of its keys (Ed25519, ML-DSA-44) cosigned. Portable.
import { toHex } from '../canonical/index.js';
import { parseNote } from '../log/note.js';
import { verifyCosignature, type CosignAlg, type CosignerKey } from './cosignature.js';

export interface WitnessCosignature {
  name: string;
  alg: CosignAlg;
  keyId: string;
  /** POSIX seconds the witness put in its cosignature. */
  timestamp: number;
}

export interface WitnessVerdict {
  ok: boolean;
  /** Distinct witness names with at least one valid cosignature. */
  witnesses: string[];
  cosignatures: WitnessCosignature[];
  /** The latest cosignature time (trusted time: the entry existed by then), ISO 8601. */
  latest?: string;
  /** Why not ok (too few witnesses, or a known key's cosignature failed). */
  problem?: string;
  detail: string;
}

const label = (name: string, keyId: Uint8Array | string): string => `${name}+${typeof keyId === 'string' ? keyId : toHex(keyId)}`;

/**
 * Check the cosignature lines of `note` (a signed checkpoint, log signatures included) against
 * `trusted` witness keys; ok when at least `minWitnesses` distinct witnesses cosigned.
 * `nowSeconds`, when given, rejects cosignatures dated more than 10 minutes in the future.
 */
export function verifyWitnesses(note: string, trusted: CosignerKey[], minWitnesses: number, nowSeconds?: number): WitnessVerdict {
  const known = new Map(trusted.map((k) => [label(k.name, k.keyId), k]));
  const cosignatures: WitnessCosignature[] = [];
  let problem: string | undefined;
  let text = '';
  try {
    const parsed = parseNote(note);
    text = parsed.text;
    for (const sig of parsed.signatures) {
      const key = known.get(label(sig.name, sig.keyId));
      if (!key) continue;
      const ts = verifyCosignature(key, text, sig.signature);
      if (ts === undefined) {
        problem ??= `cosignature by known witness key ${label(key.name, key.keyId)} (${key.alg}) does not verify: note rejected`;
        continue;
      }
      if (nowSeconds !== undefined && ts > nowSeconds + 600) {
        problem ??= `cosignature by ${key.name} is dated ${new Date(ts * 1000).toISOString()}, in the future`;
        continue;
      }
      cosignatures.push({ name: key.name, alg: key.alg, keyId: toHex(key.keyId), timestamp: ts });
    }
  } catch (e) {
    problem = (e as Error).message;
  }
  const witnesses = [...new Set(cosignatures.map((c) => c.name))];
  const latestTs = cosignatures.reduce((m, c) => Math.max(m, c.timestamp), -1);
  const latest = latestTs >= 0 ? new Date(latestTs * 1000).toISOString() : undefined;
  if (!problem && witnesses.length < minWitnesses) {
    problem = `${witnesses.length} of the trusted witnesses cosigned this checkpoint, ${minWitnesses} required`;
  }
  const named = witnesses.map((w) => `${w} (${cosignatures.filter((c) => c.name === w).map((c) => c.alg).join(', ')})`).join(', ');
  const detail = problem
    ? `${problem}${witnesses.length ? `; cosigned by ${named}` : ''}`
    : `cosigned by ${witnesses.length} witness(es) (at least ${minWitnesses} required): ${named || 'none'}${latest ? `; latest cosignature ${latest}` : ''}`;
  return { ok: !problem, witnesses, cosignatures, latest, problem, detail };
}

/** Append cosignature lines to a signed note, skipping lines it already carries. */
export function attachCosignatures(note: string, lines: readonly string[]): string {
  if (lines.length === 0) return note;
  const have = new Set(note.split('\n').map((l) => `${l}\n`));
  return note + lines.filter((l) => !have.has(l)).join('');
}
