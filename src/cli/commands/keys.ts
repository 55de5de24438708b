// vouch keys rotate | revoke | list | export: the key lifecycle (issue 18) on a stopped data directory
// (a running service takes POST /v1/keys/rotate and /v1/keys/revoke). Every change is a signed `key`
// entry in the log; the history is read back from those entries only. list and export only read.
import { existsSync } from 'node:fs';
import { toBase64 } from '../../canonical/index.js';
import { jwksKid } from '../../crypto/index.js';
import { ConfigError } from '../../errors.js';
import type { HistoryKey } from '../../log/index.js';
import { listTenants, loadKeys, logPath, openDataDir, openSqliteStore } from '../../store/node.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { intOption, parse, unknownCommand } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { TENANT_OPTION } from './_audit-open.js';
import { cliUser } from './_cli-user.js';
import { runKeysExport } from './_keys-export.js';

export const help = `vouch keys rotate [--data DIR] [--json]
vouch keys revoke KEYID --after SIZE [--tenant T] [--data DIR] [--json]
vouch keys list [--tenant T] [--data DIR] [--json]
vouch keys export [--tenant T] [--format jwks|note|keys-json] [--out FILE] [--data DIR]

rotate  new ML-DSA-65 (and Ed25519) keys for every tenant log: each log gets a \`key\` entry naming
        the outgoing and incoming keys, signed into the log by a checkpoint of the OUTGOING keys
        (the handover); later checkpoints are signed by the new keys, under the log's origin as key
        name. The old key files move to keys/history/ (mode 0600). Interrupted, it is finished by
        running it again (the incoming keys wait in keys/next/).
revoke  refuse every checkpoint the key KEYID signed after tree size SIZE in one log: verifiers
        that hold the published key history report them as key-revoked. A key still signing must
        be rotated out first. KEYID is any of its ids (\`vouch keys list\`, the JWKS kid).
list    every key of each log's history: name+key id (as its checkpoint lines carry it), algorithm,
        JWKS kid (as the JWKS and the console name it), the sizes it signs.
export  the public keys of one log (never private material), in a form every verifier takes:
          jwks       a JWKS, as GET /.well-known/vouch/keys serves it (default)
          note       signed-note vkey lines (name+id+base64, as Go's golang.org/x/mod/sumdb/note
                     reads them), each key under every name it signs with (the log's origin,
                     e.g. vouch.local/default), then \`# key\` lines with the sizes each key signs
          keys-json  an audit bundle's keys.json ({"vkeys": [...], "jwks": {...}})
        \`vouch verify --key FILE\` takes each of them. Reads only (no lock): runs while a gateway
        or \`vouch serve\` holds the data directory. --out FILE writes it there (else stdout).

rotate and revoke need the log not in use by a running server (it is locked; exit 4): use the
REST routes then. list and export only read, and run beside it.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  const { values, positionals } = parse(rest, { ...TENANT_OPTION, after: { type: 'string' }, format: { type: 'string' }, out: { type: 'string', short: 'o' } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  const dir = values.data!;
  if (!existsSync(dir)) throw new ConfigError('ERR_CONFIG', `no data directory ${dir}: run \`vouch init --data ${dir}\` first`);
  if (sub === 'list') return list(dir, values.tenant!, values['key-name']!, values.json ?? false, io);
  if (sub === 'export') return runKeysExport(dir, { tenant: values.tenant!, keyName: values['key-name']!, format: values.format, out: values.out, json: values.json }, io);
  if (sub !== 'rotate' && sub !== 'revoke') throw unknownCommand('keys command', sub, ['rotate', 'revoke', 'list', 'export']);
  if (sub === 'revoke' && (positionals.length !== 1 || values.after === undefined)) throw new UsageError('keys revoke takes one KEYID and --after SIZE');
  const dataDir = await openDataDir(dir, { thread: false, keyName: values['key-name'], resumeRotation: sub === 'rotate' });
  try {
    const time = new Date().toISOString();
    if (sub === 'rotate') {
      const r = await dataDir.rotateKeys(time, cliUser());
      if (values.json) io.out(JSON.stringify({ rotated: true, ...r }));
      else {
        for (const l of r.logs) io.out(`rotated ${l.tenant}: key entry #${l.seq}, handover checkpoint of size ${l.size} signed by the outgoing keys`);
        io.out(`new keys: ${dataDir.jwks().keys.length ? r.keys.map((k) => k.alg).join(' + ') : ''}; old key files kept: ${r.retired.join(', ') || 'none'}`);
      }
      return EXIT.ok;
    }
    const after = intOption(values.after, 'after')!;
    const r = await dataDir.revokeKey(values.tenant!, positionals[0], after, time, cliUser());
    if (values.json) io.out(JSON.stringify({ revoked: true, keyId: r.key.keyId, alg: r.key.alg, after, seq: r.seq }));
    else io.out(`revoked ${r.key.name}+${r.key.keyId} (${r.key.alg}) for checkpoints after size ${after} (key entry #${r.seq})`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}

/** keyId: the id on the log's checkpoint lines (under `name`); kid: the same key's JWKS kid (under the data directory's key name). */
function keyJson(k: HistoryKey, keyName: string) {
  return { name: k.name, keyId: k.keyId, kid: jwksKid(keyName, k.alg, k.publicKey), alg: k.alg, publicKey: toBase64(k.publicKey), ...k.window, rotatedIn: k.rotatedIn, rotatedOut: k.rotatedOut, revokedBy: k.revokedBy };
}

function list(dir: string, tenant: string, keyName: string, json: boolean, io: Io): number {
  const { keys: files } = loadKeys(dir, keyName);
  const tenants = listTenants(dir).filter((t) => t === tenant || tenant === '*');
  const out: { tenant: string; origin: string; keys: ReturnType<typeof keyJson>[]; problems: string[] }[] = [];
  for (const t of tenants.length ? tenants : []) {
    const store = openSqliteStore(logPath(dir, t), { readonly: true });
    try {
      const origin = store.meta('origin') ?? `${keyName}/${t}`;
      const { keys, problems } = tenantKeysForVerify(store, origin, files, keyName);
      out.push({ tenant: t, origin, keys: keys.history.keys.map((k) => keyJson(k, keyName)), problems: problems.map((p) => p.message) });
    } finally {
      store.close();
    }
  }
  if (json) io.out(JSON.stringify({ logs: out }));
  else {
    if (out.length === 0) io.out(`no log for tenant ${tenant} in ${dir}`);
    for (const l of out) {
      io.out(`${l.origin}:`);
      for (const k of l.keys) io.out(`  ${k.name}+${k.keyId} ${k.alg.padEnd(9)} (JWKS kid ${k.kid}) sizes ${k.from}..${k.to ?? ''}${k.revokedAfter !== undefined ? `  REVOKED after ${k.revokedAfter}` : ''}`);
      for (const p of l.problems) io.out(`  problem: ${p}`);
    }
  }
  return out.some((l) => l.problems.length) ? EXIT.findings : EXIT.ok;
}
