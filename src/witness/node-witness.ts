// Running a witness (Node only): <data>/witness-ed25519.key and witness-mldsa44.key (created on
// first run under --name), <data>/witness.db (the last size and root cosigned per origin), and
// the HTTP server. The logs it witnesses are origin + the log's vkeys.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { parseVkey } from '../log/vkey.js';
import type { NoteVerifier } from '../log/note.js';
import { loadOrCreateCosigner, readCosignerSeed } from './key-file.js';
import { startWitnessServer, type WitnessServer } from './server.js';
import { openWitnessState, type SqliteWitnessState } from './state.js';
import { formatCosignerVkey } from './vkey.js';
import type { WitnessedLog } from './witness.js';

export interface WitnessRunOptions {
  data: string;
  /** Cosigner name (a schema-less URL, e.g. witness.example/w1); required on first run, then read from the key files. */
  name?: string;
  logs: { origin: string; vkeys: string }[];
  host?: string;
  port?: number;
}

export interface RunningWitness extends WitnessServer {
  name: string;
  vkeys: string[];
  state: SqliteWitnessState;
}

export function witnessedLogsOf(logs: WitnessRunOptions['logs']): Map<string, WitnessedLog> {
  const out = new Map<string, WitnessedLog>();
  for (const l of logs) {
    const verifiers: NoteVerifier[] = l.vkeys.split('\n').map((x) => x.trim()).filter((x) => x && !x.startsWith('#')).map((x) => parseVkey(x));
    if (verifiers.length === 0) throw new ConfigError('ERR_CONFIG', `log ${l.origin}: no verifier keys`);
    out.set(l.origin, { origin: l.origin, verifiers: [...(out.get(l.origin)?.verifiers ?? []), ...verifiers] });
  }
  if (out.size === 0) throw new ConfigError('ERR_CONFIG', 'a witness needs at least one log to witness (--log ORIGIN=VKEYFILE)');
  return out;
}

export async function runWitness(opts: WitnessRunOptions): Promise<RunningWitness> {
  mkdirSync(opts.data, { recursive: true, mode: 0o700 });
  const edPath = join(opts.data, 'witness-ed25519.key');
  const pqPath = join(opts.data, 'witness-mldsa44.key');
  const name = opts.name ?? (existsSync(edPath) ? readCosignerSeed(edPath).name : undefined);
  if (!name) throw new ConfigError('ERR_CONFIG', 'first run: give the witness a name with --name (e.g. witness.example/w1); it is part of its key ids');
  const logs = witnessedLogsOf(opts.logs);
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
