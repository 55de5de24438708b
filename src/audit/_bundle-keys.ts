// keys.json of a bundle: the vkeys and the JWKS must parse, name the same keys, and agree with the
// manifest's key history. These keys come with the bundle: they prove integrity only when they
// match a key the auditor trusts for other reasons (`vouch verify --key`).
import { bytesEqual } from '../canonical/index.js';
import { parseJwks, type PublicKeyEntry } from '../crypto/index.js';
import { publicMessage } from '../errors.js';
import { parseVkey, type NoteVerifier } from '../log/index.js';
import type { BundleManifest } from './bundle-format.js';

export interface BundleKeys {
  vkeys: NoteVerifier[];
  jwks: PublicKeyEntry[];
}

export function readBundleKeys(text: string | undefined, manifest: BundleManifest): { keys: BundleKeys; problems: string[] } {
  const problems: string[] = [];
  const keys: BundleKeys = { vkeys: [], jwks: [] };
  if (text === undefined) return { keys, problems: ['keys.json is missing'] };
  let doc: { vkeys?: unknown; jwks?: unknown };
  try {
    doc = JSON.parse(text);
  } catch {
    return { keys, problems: ['keys.json is not JSON'] };
  }
  const vkeyTexts = Array.isArray(doc?.vkeys) ? doc.vkeys.filter((v): v is string => typeof v === 'string') : [];
  if (!Array.isArray(doc?.vkeys) || vkeyTexts.length !== doc.vkeys.length) problems.push('keys.json: vkeys must be a list of strings');
  for (const v of vkeyTexts) {
    try {
      keys.vkeys.push(parseVkey(v));
    } catch (e) {
      problems.push(`keys.json: ${publicMessage(e)}`);
    }
  }
  if (doc?.jwks !== undefined) {
    try {
      keys.jwks = parseJwks(doc.jwks);
    } catch (e) {
      problems.push(`keys.json: jwks: ${publicMessage(e)}`);
    }
  }
  for (const k of keys.jwks) {
    if (!keys.vkeys.some((v) => v.alg === k.alg && bytesEqual(v.publicKey, k.publicKey))) problems.push(`keys.json: JWKS key ${k.kid} is not one of the vkeys`);
  }
  const listed = new Set(manifest.keys.map((k) => k.vkey));
  if (listed.size !== vkeyTexts.length || !vkeyTexts.every((v) => listed.has(v))) problems.push('keys.json and the manifest name different keys');
  return { keys, problems };
}
