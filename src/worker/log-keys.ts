// Which secret set signs a tenant log on Workers: the one its checked key history (store/
// tenant-keys.ts, as on Node) says signs now. The current set, or the previous one during a
// handover (the log is then handed over on its next activation). Secrets that are neither are a
// coded refusal naming the fix (ERR_KEY_MISMATCH / ERR_KEY_MISSING), never "the note was altered".
import { StoreError, VouchError } from '../errors.js';
import type { KeySet } from '../log/index.js';
import { logSignersOf } from '../store/key-files-check.js';
import type { LogStore } from '../store/port.js';
import { tenantKeys, type TenantKeys } from '../store/tenant-keys.js';
import { keyLabel, sameKeys, secretOf, type WorkerKeySet, type WorkerKeySets } from './keys.js';

export interface LogKeys {
  keys: TenantKeys;
  /** The secret set that signs the log now. */
  set: WorkerKeySet;
  /** Set while the log is signed by the previous secrets: the keys its handover moves it to. */
  handoverTo?: WorkerKeySet;
}

export const WORKER_KEYS_DOC = 'docs/workers-keys.md';

/** The log's keys and the set that signs it; throws a coded refusal when no secret set does. */
export function openLogKeys(store: LogStore, origin: string, legacyName: string, sets: WorkerKeySets): LogKeys {
  const candidates = sets.previous ? [sets.current, sets.previous] : [sets.current];
  let failure: unknown;
  let history: KeySet | undefined;
  for (const files of candidates) {
    let keys: TenantKeys;
    try {
      // requireFiles false: which secrets match the history is decided here, with the Worker's words.
      keys = tenantKeys(store, origin, files.keys, legacyName, { requireFiles: false });
    } catch (e) {
      failure ??= e;
      continue;
    }
    const set = candidates.find((s) => sameKeys(s.keys, keys.history.current.keys));
    if (set) return { keys, set, ...(set !== sets.current && { handoverTo: sets.current }) };
    history = keys.history.current;
  }
  // Only the key files' own refusals are turned into the secrets' terms: a note or history that
  // does not check for another reason stays ERR_STORE_INCONSISTENT.
  const code = failure instanceof VouchError ? failure.code : undefined;
  if (history || code === 'ERR_KEY_MISMATCH' || code === 'ERR_KEY_MISSING') throw keysRefusal(store, origin, sets, history);
  throw failure;
}

/** The refusal: which key signs the log, which keys the secrets hold, and the two ways out. */
function keysRefusal(store: LogStore, origin: string, sets: WorkerKeySets, history: KeySet | undefined): StoreError {
  const signing = history
    ? history.keys.map((k) => ({ alg: k.alg, label: keyLabel(history.name, k) }))
    : logSignersOf(store.latestCheckpoint()?.note ?? '').map((l) => ({ alg: l.alg, label: l.label }));
  const name = history?.name ?? logSignersOf(store.latestCheckpoint()?.note ?? '')[0]?.name ?? origin;
  const held = (set: WorkerKeySet) => set.keys.map((k) => `${secretOf(set, k.alg)} holds ${keyLabel(name, k)}`).join(', ');
  const missing = signing.find((s) => !sets.current.keys.some((k) => k.alg === s.alg) && !sets.previous?.keys.some((k) => k.alg === s.alg));
  const by = signing.map((s) => `${s.label} (${s.alg})`).join(' and ');
  const have = [held(sets.current), ...(sets.previous ? [held(sets.previous)] : [])].join('; ');
  const fix =
    `put back the secrets that hold ${by.includes(' and ') ? 'those keys' : 'that key'} (\`wrangler secret put ${missing ? secretOf(sets.current, missing.alg) : 'VOUCH_SIGNING_KEY'}\` from your backup; under wrangler dev, its line in .dev.vars and a restart), ` +
    `or, to change keys, keep them as VOUCH_SIGNING_KEY_PREVIOUS${signing.some((s) => s.alg === 'Ed25519') ? '/VOUCH_ED25519_KEY_PREVIOUS' : ''} beside the new ones until every log has handed over (${WORKER_KEYS_DOC}). Nothing was signed`;
  if (missing) return new StoreError('ERR_KEY_MISSING', `log ${origin} is signed by ${by}, and no secret holds an ${missing.alg} key (${have}): ${fix}`);
  return new StoreError('ERR_KEY_MISMATCH', `log ${origin} is signed by ${by}, which no secret holds (${have}): the signing secrets were replaced without a handover. ${fix[0].toUpperCase()}${fix.slice(1)}`);
}
