// vouch witness: run a C2SP tlog-witness for the logs given (origin + the log's vkeys), with its
// own Ed25519 and ML-DSA-44 cosigner keys and its state (last size cosigned per origin) in --data;
// `vouch witness reset-log` replaces one origin's poisoned record with a checkpoint signed in full.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { InputError } from '../../errors.js';
import { parseNewerCheckpoint } from '../../receipt/index.js';
import { runWitness, type WitnessLogSpec } from '../../witness/node-witness.js';
import { resetWitnessedLog } from '../../witness/reset.js';
import { SIZE_CONTENT_TYPE } from '../../witness/request.js';
import type { WitnessResponse } from '../../witness/witness.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { diagnostics, LOG_LEVEL_HELP, LOG_LEVEL_OPTION, parseLogLevel, type LogLine } from '../log-lines.js';

const DEFAULT_DATA = './.vouch-witness';

export const help = `vouch witness --log ORIGIN=VKEYFILE... [--classical-ok ORIGIN]... [--name NAME] [--host H] [--port P] [--data DIR] [--json] [--log-level L]
vouch witness reset-log ORIGIN --to-checkpoint FILE --log ORIGIN=VKEYFILE [--force] [--reason TEXT] [--data DIR] [--json]

Runs a transparency-log witness (c2sp.org/tlog-witness): POST /add-checkpoint takes a log's new
checkpoint with a consistency proof from the size this witness cosigned last, and answers with
timestamped cosignatures (c2sp.org/tlog-cosignature: Ed25519, type 0x04, and ML-DSA-44, type
0x06). A checkpoint smaller than, or inconsistent with, the last one cosigned is refused:
409 (with the size held) for a wrong old size or a second root for one size, 422 for a proof that
does not verify, 403 when no trusted log key signed, 404 for an unknown origin, 400 for a
malformed request. Refused requests with a valid log signature are kept as evidence.

A witness is a verifier: it cosigns only a checkpoint signed by every key type the log's vkeys
hold, the ML-DSA-65 key at least (an Ed25519 signature alone is what a forger holding only that
key can make: 403 ERR_VERIFY_NOTE). Vkeys without an ML-DSA-65 key are refused at start.

  --log ORIGIN=VKEYFILE  a log to witness: its origin line and a file of its vkey lines (what
                         the log serves at /.well-known/vouch/vkeys); repeatable. Its \`# key\`
                         lines give each key the sizes it signs: a checkpoint a rotated-out or
                         revoked key signed past them is refused (403). The file is re-read when
                         it changes: after the log rotates its keys, fetch its vkeys again
  --classical-ok ORIGIN  accept Ed25519 signatures alone for that log (its vkeys hold no
                         ML-DSA-65 key): whoever holds its Ed25519 key can then get cosignatures.
                         Recorded in witness.db and shown at every start; repeatable
  --name NAME            the witness's name (e.g. witness.example/w1): required on first run,
                         then read from the key files (it is part of the key ids)
  --data DIR             keys (witness-ed25519.key, witness-mldsa44.key, mode 0600) and
                         witness.db (default ./.vouch-witness)
  --host H --port P      where to listen (default 127.0.0.1:2024; 0: any free port)
${LOG_LEVEL_HELP.replace('  --log-level L  ', '  --log-level L          ')}
                         Each cosignature is a line at info ({t, level, msg: "cosigned", origin,
                         size, old}); each refusal one at warn (a stale old size, 409: info)

Prints the URL and the witness's vkeys (give them to logs and verifiers), then serves until
SIGINT/SIGTERM. GET /vkeys returns the vkeys too. At start it re-checks each record it holds and
names any that the rule refuses (a poisoned record: see reset-log) and the resets on record.

reset-log ORIGIN replaces the record of one log (the size and root the witness cosigned last)
with --to-checkpoint FILE (a signed note, or the JSON of the log's GET /v1/checkpoint), which must
pass the rule above under the --log vkeys. A record that itself passes the rule is replaced only
with --force (a roll-back lets the witness cosign a log cut back). Each reset is recorded
(witness.db witness_events: from, to, who, --reason). The witness may be running.`;

function readLogs(specs: string[], classical: string[]): WitnessLogSpec[] {
  const logs = specs.map((spec) => {
    const eq = spec.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`--log takes ORIGIN=VKEYFILE, got ${JSON.stringify(spec)}`);
    const file = spec.slice(eq + 1);
    const origin = spec.slice(0, eq);
    try {
      return { origin, vkeys: readFileSync(file, 'utf8'), file, ...(classical.includes(origin) && { classicalOk: true }) };
    } catch (e) {
      throw new InputError('ERR_INPUT', `cannot read vkey file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
  });
  for (const o of classical) if (!logs.some((l) => l.origin === o)) throw new UsageError(`--classical-ok ${o} names no --log origin`);
  return logs;
}

const dataOf = (argv: string[], value: string | undefined) => (argv.includes('--data') || argv.some((a) => a.startsWith('--data=')) ? value! : DEFAULT_DATA);

export async function run(argv: string[], io: Io): Promise<number> {
  if (argv[0] === 'reset-log') return resetLog(argv.slice(1), io);
  const { values } = parse(argv, {
    log: { type: 'string', multiple: true },
    'classical-ok': { type: 'string', multiple: true },
    name: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '2024' },
    ...LOG_LEVEL_OPTION,
  });
  if (values.help) return io.out(help), EXIT.ok;
  const log = diagnostics(io, parseLogLevel(values['log-level']));
  const logs = readLogs(values.log ?? [], values['classical-ok'] ?? []);
  if (logs.length === 0) throw new UsageError('give at least one --log ORIGIN=VKEYFILE');
  const data = dataOf(argv, values.data);
  const onReload = (origin: string, file: string, error?: string) =>
    error ? log.text('warn', `vouch witness: ${file} changed but was not loaded (the keys of ${origin} stay as they were): ${error}`) : log.text('info', `vouch witness: re-read the keys of ${origin} from ${file}`);
  const w = await runWitness({ data, name: values.name, logs, host: values.host, port: intOption(values.port, 'port'), onReload, onAnswer: (r, error) => logAnswer(log.line, r, error) });
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const ready = { ready: true, url: w.url, name: w.name, vkeys: w.vkeys, logs: [...new Set(logs.map((l) => l.origin))], classical: w.classical, warnings: w.warnings };
  if (values.json) io.out(JSON.stringify(ready));
  else {
    io.out(`vouch witness ${w.name} listening on ${w.url} (POST ${w.url}/add-checkpoint)`);
    io.out(`witnessing: ${ready.logs.join(', ')}`);
    if (w.classical.length) io.out(`classical signatures alone accepted (--classical-ok) for: ${w.classical.join(', ')}`);
    for (const v of w.vkeys) io.out(`vkey: ${v}`);
  }
  for (const o of w.classical) log.text('warn', `WARNING: ${o}: checkpoints signed by the Ed25519 key alone are cosigned (--classical-ok): whoever holds that key can take this witness over for that log`);
  for (const warning of w.warnings) log.text('warn', `WARNING: ${warning}`);
  await stopped;
  await w.close();
  return EXIT.ok;
}

/**
 * One short line per request answered: a cosignature at info; a refusal at warn (a forged or
 * rolled-back checkpoint, a bad proof: what an operator looks into), but a stale old size (409
 * with the size held), which a log's submitter meets and retries from, at info.
 */
function logAnswer(line: LogLine, r: WitnessResponse, error?: string): void {
  const about = r.about ? { origin: r.about.origin, size: r.about.size, old: r.about.oldSize } : {};
  if (r.status === 200) return line({ level: 'info', msg: 'cosigned', ...about });
  const stale = r.status === 409 && r.contentType === SIZE_CONTENT_TYPE;
  const why = stale ? `the size this witness holds is ${r.body.trim()}` : (error ?? r.body.trim()).slice(0, 200);
  line({ level: r.status >= 500 ? 'error' : stale ? 'info' : 'warn', msg: 'refused', ...about, status: r.status, why });
}

async function resetLog(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    'to-checkpoint': { type: 'string' },
    log: { type: 'string', multiple: true },
    'classical-ok': { type: 'string', multiple: true },
    force: { type: 'boolean', default: false },
    reason: { type: 'string' },
  }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError('reset-log takes one ORIGIN');
  const [origin] = positionals;
  if (!values['to-checkpoint']) throw new UsageError('reset-log needs --to-checkpoint FILE (a checkpoint of the log signed in full)');
  const log = readLogs(values.log ?? [], values['classical-ok'] ?? []).find((l) => l.origin === origin);
  if (!log) throw new UsageError(`reset-log needs the log's vkeys: --log ${origin}=VKEYFILE`);
  let note: string;
  try {
    note = parseNewerCheckpoint(readFileSync(values['to-checkpoint'], 'utf8'), `the checkpoint file ${values['to-checkpoint']}`).note;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && !code.startsWith('ERR_')) throw new InputError('ERR_INPUT', `cannot read checkpoint file ${values['to-checkpoint']}: ${code}`);
    throw e;
  }
  const r = resetWitnessedLog({ data: dataOf(argv, values.data), log, checkpoint: note, force: values.force, reason: values.reason, by: `cli:${userInfo().username}` });
  if (values.json) io.out(JSON.stringify({ reset: true, ...r }));
  else {
    const from = r.previous ? `size ${r.previous.size} root ${r.previous.root.slice(0, 16)}… (${r.previous.status})` : 'no record';
    io.out(`reset ${r.origin}: ${from} -> size ${r.size} root ${r.root.slice(0, 16)}…${r.forced ? ' (--force)' : ''}; recorded in witness.db witness_events`);
  }
  return EXIT.ok;
}
