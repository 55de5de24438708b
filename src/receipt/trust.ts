// Trusted keys for offline verification, from vkey text (C2SP) or a JWKS. A JWKS has no key
// names, so a JWKS key is bound to the names on a note's signature lines: the key id hashes the
// name with the key, so a line verifies only under the key (and name) that really signed it.
import { createVerifier, noteKeyId, parseJwks, type PublicKeyEntry, type SignatureAlg } from '../crypto/index.js';
import { bytesEqual, toHex } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { noteVerifierFor, parseNote, parseVkey, type KeyWindow, type NoteVerifier } from '../log/index.js';

/** The origin line of a note (unverified: only to pick the key windows of that log). */
function originOf(noteText: string): string | undefined {
  const nl = noteText.indexOf('\n');
  return nl > 0 ? noteText.slice(0, nl) : undefined;
}

/** A key's window in one log, from a `# key <name>+<id> log <origin> from N to M|- revoked-after R|-` line of a vkeys file. */
export interface VkeyWindow {
  label: string;
  origin: string;
  window: KeyWindow;
}
export interface Trust {
  vkeys: NoteVerifier[];
  jwks: PublicKeyEntry[];
  /** Key history of vkeys files (issue 18); JWKS keys carry theirs in `logs`. */
  windows?: VkeyWindow[];
}

const WINDOW_LINE = /^# key (\S+\+[0-9a-f]{8}) log (\S+) from (\d+) to (\d+|-) revoked-after (\d+|-)$/;

function parseWindowLine(line: string): VkeyWindow | undefined {
  const m = WINDOW_LINE.exec(line);
  if (!m) return undefined;
  const w: KeyWindow = { from: Number(m[3]) };
  if (m[4] !== '-') w.to = Number(m[4]);
  if (m[5] !== '-') w.revokedAfter = Number(m[5]);
  return { label: m[1], origin: m[2], window: w };
}

/** What a trust file may be, said in every refusal (issue 37): each form `vouch keys export` writes. */
export const KEY_FILE_FORMS =
  'vkey lines (name+id+base64, `vouch keys export --format note`), a JWKS ({"keys": [...]}: GET /.well-known/vouch/keys, `vouch keys export`), a single JWK, or an audit bundle\'s keys.json ({"vkeys": [...], "jwks": {...}})';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An audit bundle's keys.json: its vkeys and its JWKS, which must name the same keys (a JWKS key
 * no vkey names is refused: the file was not written by `vouch export`, and trusting the union of
 * two lists that disagree would trust a key nobody meant to publish in the other form).
 */
function parseKeysJson(doc: Record<string, unknown>): Trust {
  const texts = doc.vkeys;
  if (!Array.isArray(texts) || !texts.every((v) => typeof v === 'string')) throw new InputError('ERR_KEY_FORMAT', 'keys.json: "vkeys" must be a list of vkey strings');
  const vkeys = texts.map((v: string) => parseVkey(v));
  const jwks = doc.jwks === undefined ? [] : parseJwks(doc.jwks);
  for (const k of jwks) {
    if (!vkeys.some((v) => v.alg === k.alg && bytesEqual(v.publicKey, k.publicKey))) throw new InputError('ERR_KEY_FORMAT', `keys.json: JWKS key ${k.kid} is not one of its vkeys (not a keys.json \`vouch export\` wrote)`);
  }
  if (vkeys.length === 0) throw new InputError('ERR_KEY_FORMAT', 'keys.json holds no vkey');
  return { vkeys, jwks };
}

/**
 * The keys of a JWKS given as a trust file. Its shape is checked first: a "keys" list whose items
 * are not JWKs (no "kty": a bundle's manifest.json lists its keys so) is not a JWKS at all. Keys of
 * other types are skipped (RFC 7517), but a set left with none would trust nothing and every
 * verdict would be INVALID for a reason that is the file's, not the evidence's: refused instead.
 */
function trustedJwks(doc: Record<string, unknown>, what: string): PublicKeyEntry[] {
  const items = doc.keys as unknown[];
  if (!items.every((k) => isObject(k) && typeof k.kty === 'string')) {
    throw new InputError('ERR_KEY_FORMAT', `key file is JSON with a "keys" list, but not a JWKS (its items are not JWKs: no "kty"): expected ${KEY_FILE_FORMS}`);
  }
  const keys = parseJwks(doc);
  if (keys.length === 0) throw new InputError('ERR_KEY_FORMAT', `key file is ${what} with no ML-DSA-65 (kty AKP) or Ed25519 (kty OKP) key, so it trusts nothing: expected ${KEY_FILE_FORMS}`);
  return keys;
}

/**
 * A trust file, recognized by its shape: vkey lines (one per line, # comments allowed), a JWKS
 * (or one JWK) holding a key vouch verifies with, or an audit bundle's keys.json. Anything else
 * is ERR_KEY_FORMAT naming the forms.
 */
export function parseTrust(text: string): Trust {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      throw new InputError('ERR_KEY_FORMAT', `key file looks like JSON but does not parse: expected ${KEY_FILE_FORMS}`);
    }
    if (isObject(doc) && Array.isArray(doc.keys)) return { vkeys: [], jwks: trustedJwks(doc, 'a JWKS') };
    if (isObject(doc) && 'vkeys' in doc) return parseKeysJson(doc);
    if (isObject(doc) && typeof doc.kty === 'string') return { vkeys: [], jwks: trustedJwks({ keys: [doc] }, 'a JWK') }; // one JWK: a set of one
    throw new InputError('ERR_KEY_FORMAT', `key file is JSON, but none of the key files vouch takes: expected ${KEY_FILE_FORMS}`);
  }
  const all = trimmed.split('\n').map((l) => l.trim());
  const lines = all.filter((l) => l && !l.startsWith('#'));
  if (lines.length === 0) throw new InputError('ERR_KEY_FORMAT', `key file holds no key: expected ${KEY_FILE_FORMS}`);
  const windows = all.map(parseWindowLine).filter((w): w is VkeyWindow => w !== undefined);
  const vkeys = lines.map((l, i) => {
    try {
      return parseVkey(l);
    } catch (e) {
      throw new InputError('ERR_KEY_FORMAT', `key file line ${all.indexOf(l) + 1 || i + 1}: ${(e as Error).message}; expected ${KEY_FILE_FORMS}`);
    }
  });
  return { vkeys, jwks: [], ...(windows.length ? { windows } : {}) };
}

/**
 * Verifiers for one signed note: every vkey, plus each JWKS key bound to every key name on the
 * note's signature lines. A JWKS key bound to a name whose line it did not sign is never used to
 * accept anything; it is there so the note rule sees that an ML-DSA-65 key is trusted even when
 * the note's ML-DSA-65 line was removed. Duplicates (a key given twice) are dropped.
 */
export function verifiersFor(trust: Trust, noteText: string): NoteVerifier[] {
  const out: NoteVerifier[] = [];
  const seen = new Map<string, NoteVerifier>();
  // Key history: the window a key has in the note's log (issue 18). A key with a window signs only
  // those sizes there; a window given twice (vkeys file and JWKS) keeps the narrower revocation.
  const origin = originOf(noteText);
  const windowOf = (label: string, k?: PublicKeyEntry): KeyWindow | undefined =>
    (origin !== undefined ? (trust.windows?.find((w) => w.label === label && w.origin === origin)?.window ?? k?.logs?.[origin]) : undefined);
  const add = (v: NoteVerifier, k?: PublicKeyEntry) => {
    const label = `${v.name}+${toHex(v.keyId)}`;
    const window = windowOf(label, k);
    const had = seen.get(label);
    if (!had) {
      const withWindow = window ? { ...v, window } : { ...v };
      seen.set(label, withWindow);
      out.push(withWindow);
    } else {
      if (window && !had.window) had.window = window;
      if (v.kid !== undefined && had.kid === undefined) had.kid = v.kid; // the same key in the vkeys and the JWKS
    }
  };
  trust.vkeys.forEach((v) => add(v));
  if (trust.jwks.length === 0) return out;
  let names: string[];
  try {
    names = [...new Set(parseNote(noteText).signatures.map((s) => s.name))];
  } catch {
    return out; // the note check itself will report the parse failure
  }
  for (const k of trust.jwks) {
    for (const name of names) add({ ...noteVerifierFor(name, createVerifier(k.alg, k.publicKey)), kid: k.kid }, k);
  }
  return out;
}

/** One signature line of a note, with the JWKS key that made it. */
export interface NamedNoteKey {
  name: string;
  /** The key id on the line (under `name`), hex. */
  keyId: string;
  alg: SignatureAlg;
  /** The JWKS kid of the same key. */
  kid: string;
}

/**
 * Which JWKS key each signature line of a note names (by key id: no signature is checked here), so
 * a key can be shown by both its ids. Lines no JWKS key matches (witness cosignatures) are left out.
 */
export function describeNoteKeys(jwks: PublicKeyEntry[], noteText: string): NamedNoteKey[] {
  const out: NamedNoteKey[] = [];
  for (const s of parseNote(noteText).signatures) {
    const keyId = toHex(s.keyId);
    const k = jwks.find((j) => toHex(noteKeyId(s.name, j.alg, j.publicKey)) === keyId);
    if (k && !out.some((o) => o.name === s.name && o.keyId === keyId)) out.push({ name: s.name, keyId, alg: k.alg, kid: k.kid });
  }
  return out;
}
