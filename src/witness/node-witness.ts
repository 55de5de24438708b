// Running a witness (Node only): <data>/witness-ed25519.key and witness-mldsa44.key (created on
// first run under --name), <data>/witness.db (the last size and root cosigned per origin), and
// the HTTP server. The logs it witnesses are origin + the log's vkeys, with their key windows;
// a vkey file that changes is re-read, so a log's key rotation needs no witness restart.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import type { NoteVerifier } from '../log/note.js';
import { parseTrust } from '../receipt/trust.js';
import { loadOrCreateCosigner, readCosignerSeed } from './key-file.js';
import { startWitnessServer, type WitnessServer } from './server.js';
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
   */
  logs: { origin: string; vkeys: string; file?: string }[];
  host?: string;
  port?: number;
  /** A vkey file was re-read (or could not be: the keys held before stay in force). */
  onReload?(origin: string, file: string, error?: string): void;
}

export interface RunningWitness extends WitnessServer {
  name: string;
  vkeys: string[];
  state: SqliteWitnessState;
}

/** One log's verifiers from its vkeys text: every vkey, each with its window in this log (`# key` lines). */
function verifiersOf(origin: string, vkeys: string): NoteVerifier[] {
  let trust: ReturnType<typeof parseTrust>;
  try {
    trust = parseTrust(vkeys);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `log ${origin}: ${(e as Error).message}`);
  }
  if (trust.vkeys.length === 0) throw new ConfigError('ERR_CONFIG', `log ${origin}: no verifier keys`);
  return trust.vkeys.map((v) => {
    const w = trust.windows?.find((x) => x.origin === origin && x.label === `${v.name}+${toHex(v.keyId)}`);
    return w ? { ...v, window: w.window } : v;
  });
}

export function witnessedLogsOf(logs: WitnessRunOptions['logs']): Map<string, WitnessedLog> {
  const out = new Map<string, WitnessedLog>();
  for (const l of logs) {
    const had = out.get(l.origin)?.verifiers ?? [];
    const label = (v: NoteVerifier) => `${v.name}+${toHex(v.keyId)}`;
    const fresh = verifiersOf(l.origin, l.vkeys).filter((v, i, all) => !had.some((h) => label(h) === label(v)) && all.findIndex((x) => label(x) === label(v)) === i);
    out.set(l.origin, { origin: l.origin, verifiers: [...had, ...fresh] });
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
          verifiersOf(l.origin, text); // a bad file keeps the keys held before
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
    const server = await startWitnessServer({ logs, state, cosigners, vkeys, now: () => Date.now() / 1000, host: opts.host, port: opts.port });
    return {
      ...server,
      name,
      vkeys,
      state,
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
