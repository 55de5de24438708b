// vouch witness: run a C2SP tlog-witness for the logs given (origin + the log's vkeys), with its
// own Ed25519 and ML-DSA-44 cosigner keys and its state (last size cosigned per origin) in --data.
import { readFileSync } from 'node:fs';
import { InputError } from '../../errors.js';
import { runWitness } from '../../witness/node-witness.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';

export const help = `vouch witness --log ORIGIN=VKEYFILE... [--name NAME] [--host H] [--port P] [--data DIR] [--json]

Runs a transparency-log witness (c2sp.org/tlog-witness): POST /add-checkpoint takes a log's new
checkpoint with a consistency proof from the size this witness cosigned last, and answers with
timestamped cosignatures (c2sp.org/tlog-cosignature: Ed25519, type 0x04, and ML-DSA-44, type
0x06). A checkpoint smaller than, or inconsistent with, the last one cosigned is refused:
409 (with the size held) for a wrong old size or a second root for one size, 422 for a proof that
does not verify, 403 when no trusted log key signed, 404 for an unknown origin, 400 for a
malformed request. Refused requests with a valid log signature are kept as evidence.

  --log ORIGIN=VKEYFILE  a log to witness: its origin line and a file of its vkey lines (what
                         the log serves at /.well-known/vouch/vkeys); repeatable. Its \`# key\`
                         lines give each key the sizes it signs: a checkpoint a rotated-out or
                         revoked key signed past them is refused (403). The file is re-read when
                         it changes: after the log rotates its keys, fetch its vkeys again
  --name NAME            the witness's name (e.g. witness.example/w1): required on first run,
                         then read from the key files (it is part of the key ids)
  --data DIR             keys (witness-ed25519.key, witness-mldsa44.key, mode 0600) and
                         witness.db (default ./.vouch-witness)
  --host H --port P      where to listen (default 127.0.0.1:2024; 0: any free port)

Prints the URL and the witness's vkeys (give them to logs and verifiers), then serves until
SIGINT/SIGTERM. GET /vkeys returns the vkeys too.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    log: { type: 'string', multiple: true },
    name: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '2024' },
  });
  if (values.help) return io.out(help), EXIT.ok;
  const logs = (values.log ?? []).map((spec) => {
    const eq = spec.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`--log takes ORIGIN=VKEYFILE, got ${JSON.stringify(spec)}`);
    const file = spec.slice(eq + 1);
    try {
      return { origin: spec.slice(0, eq), vkeys: readFileSync(file, 'utf8'), file };
    } catch (e) {
      throw new InputError('ERR_INPUT', `cannot read vkey file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
  });
  if (logs.length === 0) throw new UsageError('give at least one --log ORIGIN=VKEYFILE');
  const data = argv.includes('--data') || argv.some((a) => a.startsWith('--data=')) ? values.data! : './.vouch-witness';
  const onReload = (origin: string, file: string, error?: string) =>
    io.err(error ? `vouch witness: ${file} changed but was not loaded (the keys of ${origin} stay as they were): ${error}` : `vouch witness: re-read the keys of ${origin} from ${file}`);
  const w = await runWitness({ data, name: values.name, logs, host: values.host, port: intOption(values.port, 'port'), onReload });
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const ready = { ready: true, url: w.url, name: w.name, vkeys: w.vkeys, logs: logs.map((l) => l.origin) };
  if (values.json) io.out(JSON.stringify(ready));
  else {
    io.out(`vouch witness ${w.name} listening on ${w.url} (POST ${w.url}/add-checkpoint)`);
    io.out(`witnessing: ${ready.logs.join(', ')}`);
    for (const v of w.vkeys) io.out(`vkey: ${v}`);
  }
  await stopped;
  await w.close();
  return EXIT.ok;
}
