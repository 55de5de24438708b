// Running a witness (Node only): <data>/witness-ed25519.key and witness-mldsa44.key (created on
// first run under --name), <data>/witness.db (the last size and root cosigned per origin), and
// the HTTP server. The logs it witnesses are origin + the log's vkeys, with their key windows;
// a vkey file that changes is re-read, so a log's key rotation needs no witness restart. A log
// configured without an ML-DSA-65 key is refused unless classical signatures were accepted for it
// explicitly (recorded in witness.db and shown at start); records that fail the rule are named.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import { POST_QUANTUM_ALGS, type NoteVerifier } from '../log/note.js';
import type { PostQuantumAlg } from '../crypto/index.js';
import { keyTypesOf, openCompleteCheckpoint } from '../log/open-complete.js';
import { parseTrust } from '../receipt/trust.js';
import { loadOrCreateCosigner, readCosignerSeed } from './key-file.js';
import { startWitnessServer, type WitnessServer, type WitnessServerOptions } from './server.js';
import { openWitnessState, type SqliteWitnessState } from './state.js';
import { formatCosignerVkey } from './vkey.js';
import type { WitnessedLog, WitnessOptions } from './witness.js';

export interface WitnessRunOptions {
  data: string;
  /** Cosigner name (a schema-less URL, e.g. witness.example/w1); required on first run, then read from the key files. */
  name?: string;
  /**
   * origin + the log's vkeys (with its `# key` window lines); with `file`, the vkeys are re-read
   * whenever that file changes (a log rotated its keys: refresh the file, no restart).
   * `classicalOk`: the operator accepts Ed25519 signatures alone for this log (`--classical-ok ORIGIN`).
   */
  logs: WitnessLogSpec[];
  host?: string;
  port?: number;
  /** A vkey file was re-read (or could not be: the keys held before stay in force). */
  onReload?(origin: string, file: string, error?: string): void;
  /** Each add-checkpoint answered (server.ts). */
  onAnswer?: WitnessServerOptions['onAnswer'];
}

export interface WitnessLogSpec {
  origin: string;
  vkeys: string;
  file?: string;
  classicalOk?: boolean;
}

export interface RunningWitness extends WitnessServer {
  name: string;
  vkeys: string[];
  state: SqliteWitnessState;
  /** Origins for which classical signatures alone are accepted (the operator's explicit choice). */
  classical: string[];
  /** What the operator must hear at start: records that fail the rule, resets on record. */
  warnings: string[];
}

/**
 * One log's verifiers from its vkeys text: every vkey, each with its window in this log (`# key`
 * lines). Every key set must hold a post-quantum key (ML-DSA-65, or the ML-DSA-44 key a public
 * witness is given) unless `classicalOk`: a witness given only the Ed25519 vkey would cosign
 * whatever the holder of that one key signs.
 */
export function verifiersOf(origin: string, vkeys: string, classicalOk = false): NoteVerifier[] {
  let trust: ReturnType<typeof parseTrust>;
  try {
    trust = parseTrust(vkeys);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `log ${origin}: ${(e as Error).message}`);
  }
  if (trust.vkeys.length === 0) throw new ConfigError('ERR_CONFIG', `log ${origin}: no verifier keys`);
  const verifiers = trust.vkeys.map((v) => {
    const w = trust.windows?.find((x) => x.origin === origin && x.label === `${v.name}+${toHex(v.keyId)}`);
    return w ? { ...v, window: w.window } : v;
  });
  const classicalSet = keyTypesOf(verifiers).find((algs) => !algs.some((a) => POST_QUANTUM_ALGS.includes(a as PostQuantumAlg)));
  if (classicalSet && !classicalOk) {
    throw new ConfigError(
      'ERR_CONFIG',
      `log ${origin}: its vkeys hold no ${POST_QUANTUM_ALGS.join(' or ')} key (only ${classicalSet.join(', ')}), so this witness would cosign checkpoints signed by classical keys alone: ` +
        `anyone holding the log's Ed25519 key could take it over. Give the log's full vkeys (curl <log>/.well-known/vouch/vkeys), ` +
        `or accept classical signatures for this log on purpose with --classical-ok ${origin} (recorded, and shown at every start)`,
    );
  }
  return verifiers;
}

export function witnessedLogsOf(logs: WitnessRunOptions['logs']): Map<string, WitnessedLog> {
  const out = new Map<string, WitnessedLog>();
  for (const l of logs) {
    const had = out.get(l.origin)?.verifiers ?? [];
    const label = (v: NoteVerifier) => `${v.name}+${toHex(v.keyId)}`;
    const classicalOk = Boolean(l.classicalOk || out.get(l.origin)?.classicalOk);
    const fresh = verifiersOf(l.origin, l.vkeys, classicalOk).filter((v, i, all) => !had.some((h) => label(h) === label(v)) && all.findIndex((x) => label(x) === label(v)) === i);
    out.set(l.origin, { origin: l.origin, verifiers: [...had, ...fresh], ...(classicalOk && { classicalOk }) });
  }
  if (out.size === 0) throw new ConfigError('ERR_CONFIG', 'a witness needs at least one log to witness (--log ORIGIN=VKEYFILE)');
  return out;
}

/** The witnessed logs, re-read from their vkey files when one changes (checked on each request: one stat per file). */
function reloadingLogs(opts: WitnessRunOptions): WitnessOptions['logs'] {
  const specs = opts.logs.map((l) => ({ ...l }));
  const stamp = (f: string) => {
    try {
      const st = statSync(f);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return 'missing';
    }
  };
  const stamps = specs.map((l) => (l.file ? stamp(l.file) : ''));
  let logs = witnessedLogsOf(specs);
  return {
    get(origin) {
      let changed = false;
      specs.forEach((l, i) => {
        if (!l.file) return;
        const now = stamp(l.file);
        if (now === stamps[i]) return;
        stamps[i] = now;
        try {
          const text = readFileSync(l.file, 'utf8');
          verifiersOf(l.origin, text, l.classicalOk); // a bad file (or one with no ML-DSA-65 key) keeps the keys held before
          l.vkeys = text;
          changed = true;
          opts.onReload?.(l.origin, l.file);
        } catch (e) {
          opts.onReload?.(l.origin, l.file, (e as Error).message);
        }
      });
      if (changed) logs = witnessedLogsOf(specs);
      return logs.get(origin);
    },
  };
}

export async function runWitness(opts: WitnessRunOptions): Promise<RunningWitness> {
  mkdirSync(opts.data, { recursive: true, mode: 0o700 });
  const edPath = join(opts.data, 'witness-ed25519.key');
  const pqPath = join(opts.data, 'witness-mldsa44.key');
  const name = opts.name ?? (existsSync(edPath) ? readCosignerSeed(edPath).name : undefined);
  if (!name) throw new ConfigError('ERR_CONFIG', 'first run: give the witness a name with --name (e.g. witness.example/w1); it is part of its key ids');
  const logs = reloadingLogs(opts);
  const cosigners = [loadOrCreateCosigner(edPath, name, 'Ed25519'), loadOrCreateCosigner(pqPath, name, 'ML-DSA-44')];
  const vkeys = cosigners.map(formatCosignerVkey);
  const state = openWitnessState(join(opts.data, 'witness.db'));
  try {
    const classical = recordClassical(state, opts.logs);
    const warnings = checkRecords(state, logs);
    const server = await startWitnessServer({ logs, state, cosigners, vkeys, now: () => Date.now() / 1000, host: opts.host, port: opts.port, onAnswer: opts.onAnswer });
    return {
      ...server,
      name,
      vkeys,
      state,
      classical,
      warnings,
      close: async () => {
        await server.close();
        state.close();
      },
    };
  } catch (e) {
    state.close();
    throw e;
  }
}

/** Classical acceptance, per origin, as the operator set it: recorded in witness.db whenever it changes. */
function recordClassical(state: SqliteWitnessState, logs: WitnessLogSpec[]): string[] {
  const on = [...new Set(logs.filter((l) => l.classicalOk).map((l) => l.origin))];
  for (const origin of new Set(logs.map((l) => l.origin))) {
    const last = state.events(origin).filter((e) => e.kind === 'classical-ok').pop();
    const now = on.includes(origin);
    if ((last?.detail.on ?? false) !== now) state.recordEvent(origin, 'classical-ok', { on: now });
  }
  return on;
}

/**
 * Re-check each record against the rule at start: a record that fails it (a checkpoint this
 * witness cosigned before issue 35, signed by the Ed25519 key alone) is poisoned, and the witness
 * would answer the real log 409 from it for ever. Named with the way out; resets on record too.
 */
function checkRecords(state: SqliteWitnessState, logs: WitnessOptions['logs']): string[] {
  const warnings: string[] = [];
  for (const origin of state.origins()) {
    const log = logs.get(origin);
    const rec = state.record(origin);
    if (!log || !rec) continue;
    const resets = state.events(origin).filter((e) => e.kind === 'reset');
    if (resets.length) warnings.push(`${origin}: record reset ${resets.length} time(s) by vouch witness reset-log, last at ${resets[resets.length - 1].at} (witness.db witness_events)`);
    if (rec.note === undefined) continue; // written before records kept their note: nothing to re-check
    try {
      openCompleteCheckpoint(rec.note, log.verifiers, { classicalOk: log.classicalOk });
    } catch (e) {
      warnings.push(`${origin}: the record this witness holds (size ${rec.size}) is not a checkpoint the log's keys sign in full (${(e as Error).message}); it will refuse the log with 409. Recover with vouch witness reset-log ${origin} --to-checkpoint FILE (docs/witnesses.md, "Recovering a poisoned witness")`);
    }
  }
  return warnings;
}
