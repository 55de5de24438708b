// Start-up's cache of policy sets already validated: read from the newest signed `policy` entries
// of a few logs, so that start-up skips validating them again (Node only).
import { newestPolicyRecord } from '../decide/index.js';
import { cedarVersion } from '../policy/index.js';
import { signedPrefix } from '../store/signed-prefix.js';
import { listTenants, logPath, openSqliteStore, readKeySeeds } from '../store/node.js';
import { bytesEqual, utf8 } from '../canonical/index.js';
import { noteKeyId } from '../crypto/index.js';
import { nodeEd25519PublicKeyFromSeed, nodeVerifyEd25519 } from '../crypto/node.js';
import { parseNote } from '../log/index.js';

/** Logs looked at for policies already validated (a few: the check is a cache, not a scan). */
const VALIDATED_LOGS_READ = 8;

/**
 * The policy sets the newest `policy` entries of the logs here say this Cedar version validated
 * when they were put in force: start-up skips validating them again (policy/policy-set.ts), the
 * largest part of loading the policy. Read-only, a few indexed reads a log. Evidence is an entry
 * included in the tree of the newest checkpoint whose Ed25519 line verifies with this data
 * directory's key (node:crypto, no warm-up; a directory without an Ed25519 key always validates):
 * a log file made up by someone who can write files but not sign is none. Anything unreadable or
 * inconsistent is no evidence, and the policy is validated as usual. Validation is the author's
 * check, not a guard (a policy that fails it still evaluates, and every evaluation error denies).
 */
export function validatedPolicySets(data: string): Set<string> {
  const out = new Set<string>();
  let edPublicKey: Uint8Array | undefined;
  try {
    const seed = readKeySeeds(data).ed25519Seed;
    edPublicKey = seed && nodeEd25519PublicKeyFromSeed(seed);
  } catch {
    return out;
  }
  if (!edPublicKey) return out;
  const signedByUs = (note: string): boolean => {
    const n = parseNote(note);
    const text = utf8.encode(n.text);
    return n.signatures.some((s) => bytesEqual(s.keyId, noteKeyId(s.name, 'Ed25519', edPublicKey!)) && nodeVerifyEd25519(edPublicKey!, text, s.signature));
  };
  for (const tenant of listTenants(data).slice(0, VALIDATED_LOGS_READ)) {
    let store: ReturnType<typeof openSqliteStore> | undefined;
    try {
      store = openSqliteStore(logPath(data, tenant), { readonly: true });
      const cp = store.latestCheckpoint();
      // What that signed checkpoint covers, never entries after it (anyone can add those: issue 35).
      const rec = cp && signedByUs(cp.note) ? newestPolicyRecord(signedPrefix(store, cp.size)) : undefined;
      const engines = rec?.engines as { cedar?: unknown } | undefined;
      if (rec && engines?.cedar === cedarVersion) out.add(rec.policySet);
    } catch {
      /* no evidence */
    } finally {
      try {
        store?.close();
      } catch {
        /* closing a read-only handle */
      }
    }
  }
  return out;
}
