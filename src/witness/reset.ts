// Recovering a witness whose record for one log was poisoned (issue 35): `vouch witness reset-log`
// replaces that origin's record with a checkpoint the operator supplies, and records it. Node only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../canonical/index.js';
import { ConfigError, InputError } from '../errors.js';
import { openCompleteCheckpoint } from '../log/open-complete.js';
import { witnessedLogsOf, type WitnessLogSpec } from './node-witness.js';
import { openWitnessState, type StoredHead } from './state.js';

export interface ResetOptions {
  data: string;
  /** The log, as the witness is configured with it (origin, vkeys, classical acceptance). */
  log: WitnessLogSpec;
  /** The signed checkpoint note to hold from now on (e.g. the log's GET /v1/checkpoint). */
  checkpoint: string;
  /** Replace a record that is itself a checkpoint signed in full (a deliberate roll-back). */
  force?: boolean;
  reason?: string;
  /** Who ran it (the OS user, as `cli:<user>`). */
  by: string;
}

export interface ResetResult {
  origin: string;
  previous?: { size: number; root: string; status: string };
  size: number;
  root: string;
  forced: boolean;
}

/**
 * What it holds against: the new record must be a checkpoint the log's keys sign in full (the
 * witness's own rule), so the tool installs nothing a forger made; a record that itself passes the
 * rule (a genuine checkpoint) is replaced only with `force`, since rolling it back is exactly what
 * lets a witness cosign a log cut back; every reset is an insert-only witness_events row the
 * witness names at each start. Someone who can write witness.db needs no tool at all: that is out
 * of any witness's reach, and why verifiers ask for several independent witnesses (docs/witnesses.md).
 */
export function resetWitnessedLog(opts: ResetOptions): ResetResult {
  const dbPath = join(opts.data, 'witness.db');
  if (!existsSync(dbPath)) throw new ConfigError('ERR_CONFIG', `no witness state in ${opts.data} (witness.db): give the --data of the witness to reset`);
  const log = witnessedLogsOf([opts.log]).get(opts.log.origin)!;
  const rule = (note: string) => openCompleteCheckpoint(note, log.verifiers, { classicalOk: log.classicalOk });
  // The checkpoint must pass the rule the witness applies to every request: a reset installs only what the log signed in full.
  const cp = rule(opts.checkpoint).checkpoint;
  if (cp.origin !== log.origin) throw new InputError('ERR_INPUT', `the checkpoint is of log ${JSON.stringify(cp.origin)}, not ${JSON.stringify(log.origin)}`);
  const statusOf = (rec: StoredHead): string => {
    if (rec.note === undefined) return 'unchecked (recorded before witnesses kept the note)';
    try {
      rule(rec.note);
      return 'signed in full';
    } catch (e) {
      return `not signed in full: ${(e as Error).message}`;
    }
  };
  let previous: ResetResult['previous'];
  const state = openWitnessState(dbPath);
  try {
    state.reset(log.origin, { size: cp.size, root: cp.root, note: opts.checkpoint }, (current) => {
      previous = current && { size: current.size, root: toHex(current.root), status: statusOf(current) };
      // Only a record shown not to be signed in full is replaced without --force: one kept before witnesses
      // kept notes cannot be told from a genuine one, and a genuine one rolled back lets a cut log be cosigned.
      const provenPoisoned = previous!.status.startsWith('not signed in full');
      if (current && !provenPoisoned && !opts.force && !(current.size === cp.size && previous!.root === toHex(cp.root))) {
        throw new InputError(
          'ERR_INPUT',
          `the record of ${log.origin} (size ${current.size}) is ${previous!.status === 'signed in full' ? "a checkpoint the log's keys sign in full, not a poisoned one" : 'not known to be poisoned (' + previous!.status + ')'}: replacing it would let this witness cosign a log cut back or forked. ` +
            'If the log was restored from a backup on purpose, give --force (the reset is recorded either way)',
        );
      }
      return { from: previous ?? null, to: { size: cp.size, root: toHex(cp.root) }, forced: Boolean(opts.force), reason: opts.reason ?? null, by: opts.by };
    });
  } finally {
    state.close();
  }
  return { origin: log.origin, previous, size: cp.size, root: toHex(cp.root), forced: Boolean(opts.force) };
}
