// What a file given to `vouch verify` is, when it is not what that place takes (issue 37): a key
// file given as the receipt, a checkpoint, a receipt given as the key. Said by name, with where it
// goes, instead of a parser's complaint about fields it never had. readKeyFile: every --key reads here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUNDLE_FORMAT, FILES } from '../../audit/bundle-format.js';
import { InputError, publicMessage } from '../../errors.js';
import { KEY_FILE_FORMS, parseTrust, type Trust } from '../../receipt/index.js';

const VKEY_LINE = /^[^\s+]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/;
const NOTE_SIGNATURE = /\n\n\u2014 \S+ [A-Za-z0-9+/]+=*\n/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A short name for what the text is, when it is one of the files vouch hands out; else undefined. */
export function kindOf(text: string, doc?: unknown): 'jwks' | 'vkeys' | 'bundle-manifest' | 'checkpoint' | 'consistency' | 'checkpoint-answer' | 'receipt' | 'entry-answer' | undefined {
  if (isObject(doc)) {
    // A bundle's manifest lists its keys under "keys" too ({alg, keyId, vkey}: no JWK): said first.
    if (doc.format === BUNDLE_FORMAT) return 'bundle-manifest';
    if (Array.isArray(doc.keys) && doc.keys.every((k) => isObject(k) && typeof k.kty === 'string')) return 'jwks';
    if (typeof doc.kty === 'string') return 'jwks'; // a single JWK
    if (Array.isArray(doc.proof) && 'checkpoint' in doc && 'from' in doc) return 'consistency';
    if ('origin' in doc && 'root' in doc && 'checkpoint' in doc) return 'checkpoint-answer';
    if ('seq' in doc && 'entry' in doc && 'receipt' in doc) return 'entry-answer';
    if (typeof doc.entry === 'string' && typeof doc.checkpoint === 'string') return 'receipt';
    return undefined;
  }
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (lines.length > 0 && lines.every((l) => VKEY_LINE.test(l))) return 'vkeys';
  if (NOTE_SIGNATURE.test(text)) return 'checkpoint';
  return undefined;
}

/** Why this file is not a receipt, and where it goes; undefined when it may be one. */
export function notAReceipt(kind: ReturnType<typeof kindOf>): string | undefined {
  switch (kind) {
    case 'jwks':
      return 'this is a key file (JWKS): pass it with --key';
    case 'vkeys':
      return 'this is a key file (vkeys): pass it with --key';
    case 'checkpoint':
    case 'checkpoint-answer':
      return 'this is a checkpoint: pass it with --checkpoint (the receipt is what POST /v1/authorize or GET /v1/entries/SEQ answered under "receipt")';
    case 'consistency':
      return 'this is a consistency proof (GET /v1/proofs/consistency): pass it with --checkpoint';
    case 'bundle-manifest':
      return "this is the manifest.json of an audit bundle: verify the bundle itself (vouch verify BUNDLE_DIR --key KEYS)";
    default:
      return undefined;
  }
}

/** Why this file is not a key file, and where it goes; undefined when it may be one. */
export function notAKeyFile(kind: ReturnType<typeof kindOf>): string | undefined {
  switch (kind) {
    case 'receipt':
    case 'entry-answer':
      return 'this is a receipt, not a key file: give it as RECEIPT, and as --key the keys from /.well-known/vouch/keys (or vkeys)';
    case 'checkpoint':
    case 'checkpoint-answer':
    case 'consistency':
      return 'this is a checkpoint, not a key file: pass it with --checkpoint';
    default:
      return undefined;
  }
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A --key file (verify RECEIPT, verify BUNDLE, replay --bundle): vkey lines, a JWKS or a bundle's
 * keys.json, each by its shape (receipt/trust.ts). A file vouch hands out for another place (a
 * receipt, a checkpoint) says where it goes; a bundle's manifest.json (it lists the keys, but as no
 * key file) is ERR_KEY_FORMAT naming the keys.json beside it; anything else ERR_KEY_FORMAT naming
 * the forms taken.
 */
export function readKeyFile(path: string): Trust {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError('ERR_INPUT', `cannot read key file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const kind = kindOf(text, jsonOf(text));
  if (kind === 'bundle-manifest') {
    const keys = join(dirname(path), FILES.keys);
    throw new InputError('ERR_KEY_FORMAT', `--key ${path}: this is the manifest.json of an audit bundle, not a key file: give the bundle's keys.json beside it (--key ${keys}) if you trust that bundle, else the service's keys; --key takes ${KEY_FILE_FORMS}`);
  }
  try {
    return parseTrust(text);
  } catch (e) {
    const why = notAKeyFile(kind);
    throw new InputError(why ? 'ERR_INPUT' : 'ERR_KEY_FORMAT', `--key ${path}: ${why ?? publicMessage(e)}`);
  }
}
