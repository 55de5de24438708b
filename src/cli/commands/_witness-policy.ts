// `--witness VKEY` (repeatable) and `--min-witnesses K`, shared by `vouch verify RECEIPT` and
// `vouch verify BUNDLE`: the trusted witnesses' cosigner keys (vkeys or files of them), and a
// check of a checkpoint note's cosignatures that keeps the verdict (names, latest time) for output.
import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../errors.js';
import { parseCosignerVkeys, verifyWitnesses, type CosignerKey, type WitnessVerdict } from '../../witness/index.js';
import { intOption } from '../args.js';
import { UsageError } from '../io.js';

export const WITNESS_OPTIONS = { witness: { type: 'string', multiple: true }, 'min-witnesses': { type: 'string' } } as const;

export interface WitnessPolicy {
  /** undefined without --witness / --min-witnesses: no witness check. */
  check?: (note: string) => { name: 'witnesses'; ok: boolean; detail: string; latest?: string };
  /** The newest valid cosignature time by these witnesses on another note (a newer checkpoint); never changes `verdict()`. */
  cosignedAt(note: string): string | undefined;
  /** The verdict of the last check (set once `check` ran). */
  verdict(): WitnessVerdict | undefined;
  /** The verdict as JSON output fields: each cosignature with its time, and the latest time. */
  json(): { witnesses?: (WitnessVerdict['cosignatures'][number] & { time: string })[]; witnessTime?: string | null };
}

/** Throws InputError (exit 3) for an unreadable or malformed witness key, UsageError for K without keys. */
export function witnessPolicy(values: { witness?: string[]; 'min-witnesses'?: string }): WitnessPolicy {
  const min = intOption(values['min-witnesses'], 'min-witnesses') ?? (values.witness?.length ? 1 : 0);
  const keys: CosignerKey[] = (values.witness ?? []).flatMap((w) => {
    if (!existsSync(w)) return parseCosignerVkeys(w);
    try {
      return parseCosignerVkeys(readFileSync(w, 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code) throw new InputError('ERR_INPUT', `cannot read witness key file ${w}: ${(e as NodeJS.ErrnoException).code}`);
      throw e;
    }
  });
  if (min > 0 && keys.length === 0) throw new UsageError("--min-witnesses needs the witnesses' keys (--witness VKEY)");
  let last: WitnessVerdict | undefined;
  return {
    check: keys.length || min
      ? (note) => ((last = verifyWitnesses(note, keys, min, Math.floor(Date.now() / 1000))), { name: 'witnesses', ok: last.ok, detail: last.detail, ...(last.latest && { latest: last.latest }) })
      : undefined,
    cosignedAt: (note) => {
      const v = verifyWitnesses(note, keys, 0, Math.floor(Date.now() / 1000));
      return v.problem ? undefined : v.latest;
    },
    verdict: () => last,
    json: () => (last ? { witnesses: last.cosignatures.map((c) => ({ ...c, time: new Date(c.timestamp * 1000).toISOString() })), witnessTime: last.latest ?? null } : {}),
  };
}
