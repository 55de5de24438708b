// vouch policy activate | status | unpin: policy versions by digest on a stopped data directory.
// A running service takes a new policy through POST /v1/policy instead (no restart).
import { activatePolicy, recordActivation, newestPolicyRecord, recordUnpin } from '../../decide/index.js';
import { createMemoryStateStores } from '../../interceptors/builtin/index.js';
import { ConfigError } from '../../errors.js';
import { loadConfigFile } from '../../policy/load-config.js';
import { logPortOf } from '../../store/log-port.js';
import { parse, unknownCommand } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openLogForWriting, openVerifiedReadOnly, TENANT_OPTION } from './_audit-open.js';
import { describeActivation, policyHistory, policyInForce, short } from './_policy-history.js';
import { cliUser } from './_cli-user.js';

export const help = `vouch policy activate FILE [--data DIR] [--tenant T] [--json]
vouch policy activate FILE --url URL [--json]     (a running service; token from $VOUCH_TOKEN)
vouch policy status [--data DIR] [--tenant T] [--json]
vouch policy unpin [--data DIR] [--tenant T]
vouch policy history [--data DIR] [--tenant T] [--json]

activate  validates FILE (chain config, YAML or JSON, with its Cedar files) and activates it
          fully, then stores its chain and policy documents by digest, appends a signed
          \`policy\` entry and pins it: the next \`vouch serve\` uses it for this tenant instead
          of --config. The data directory must not be in use by a running server (the log is
          locked; exit 4): for a running server use POST /v1/policy, which swaps the policy
          without a restart and pins it the same way; \`--url URL\` does that for you: FILE is
          loaded here (with its Cedar files) and POSTed as a document (admin role; a bearer
          token from $VOUCH_TOKEN when the service checks tokens).
status    shows the policy in force (the newest \`policy\` entry) and whether it is pinned.
unpin     appends a \`policy\` entry that unpins it: the next start uses the config file again
          (and records it if it differs). Pins live in entries, never in a mutable table.
history   lists every \`policy\` entry of the log, oldest first: seq, time, action, who (the API
          caller's principal, cli:<user>, or start-up), pinned, chain and policy-set digests; the
          newest is the policy in force. Read-only: works while the service runs.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'activate') return activate(rest, io);
  if (sub === 'status') return status(rest, io);
  if (sub === 'unpin') return unpin(rest, io);
  if (sub === 'history') return history(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  throw unknownCommand('policy command', sub, ['activate', 'status', 'unpin', 'history']);
}

async function activate(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { ...TENANT_OPTION, url: { type: 'string' } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError('policy activate takes one config FILE');
  const resolved = await loadConfigFile(positionals[0]);
  if (values.url !== undefined) return activateRemote(values.url, resolved.resolved, values.json!, io);
  // Fully built before anything is written: a config that cannot run is never recorded.
  const policy = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    const seq = await recordActivation(logPortOf(log.origin, log.store, log.appender), log.store, policy, new Date().toISOString(), { pinned: true, by: cliUser() });
    const out = { tenant: values.tenant, chain: policy.chainDigest, policySet: policy.policyDigest, engines: policy.engines, seq, pinned: true };
    if (values.json) io.out(JSON.stringify(out));
    else io.out(`activated for tenant ${values.tenant}: chain ${policy.chainDigest}, policy set ${policy.policyDigest} (${seq === undefined ? 'already in force' : `policy entry #${seq}`}); pinned for the next start`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
    await policy.close();
  }
}

function status(argv: string[], io: Io): number {
  const { values } = parse(argv, TENANT_OPTION);
  if (values.help) return io.out(help), EXIT.ok;
  const store = openVerifiedReadOnly(values.data!, values.tenant!, values['key-name']!);
  try {
    // The newest policy entry, checked against the signed tree: the record, not a pointer.
    const rec = newestPolicyRecord(store);
    const active = rec ? { chain: rec.chain, policySet: rec.policySet } : null;
    const out = { tenant: values.tenant, active, pinned: rec?.pinned ? active : null };
    if (values.json) io.out(JSON.stringify(out));
    else {
      const entry = rec && policyInForce(store);
      io.out(rec ? `in force: chain ${rec.chain}, policy set ${rec.policySet} (${entry ? describeActivation(entry) : `policy entry #${rec.seq}`})` : 'no policy recorded yet');
      io.out(rec?.pinned ? `pinned:   chain ${rec.chain} (used at the next start instead of --config)` : 'not pinned: the next start uses the config file');
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}

async function unpin(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, TENANT_OPTION);
  if (values.help) return io.out(help), EXIT.ok;
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    const seq = await recordUnpin(logPortOf(log.origin, log.store, log.appender), log.store, new Date().toISOString(), cliUser());
    io.out(seq === undefined ? `tenant ${values.tenant} was not pinned: the next start uses the config file` : `unpinned tenant ${values.tenant} (policy entry #${seq}): the next start uses the config file`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}

function history(argv: string[], io: Io): number {
  const { values } = parse(argv, TENANT_OPTION);
  if (values.help) return io.out(help), EXIT.ok;
  const store = openVerifiedReadOnly(values.data!, values.tenant!, values['key-name']!);
  try {
    const list = policyHistory(store);
    const current = policyInForce(store); // the newest, checked against the signed tree
    if (values.json) {
      io.out(JSON.stringify({ tenant: values.tenant, inForce: current?.seq ?? null, activations: list.map((a) => ({ ...a, inForce: a.seq === current?.seq })) }));
      return EXIT.ok;
    }
    if (list.length === 0) return io.out(`tenant ${values.tenant}: no policy recorded yet`), EXIT.ok;
    const rows = list.map((a) => [String(a.seq), a.time, a.action, a.pinned ? 'yes' : 'no', a.by ?? '-', short(a.chain), short(a.policySet) + (a.mirror ? `  mirror ${short(a.mirror)}` : '') + (a.seq === current?.seq ? '  <- in force' : '')]);
    const head = ['seq', 'time', 'action', 'pinned', 'by', 'chain', 'policy set'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
    io.out(fmt(head));
    for (const r of rows) io.out(fmt(r));
    if (current) io.out(`in force: policy entry #${current.seq}, ${current.pinned ? 'pinned: the next start uses it instead of the config file (vouch policy unpin to follow the file)' : 'not pinned: the next start uses the config file'}`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}

/** POST /v1/policy on a running service: the resolved document (policies inline), so Cedar files need not be readable there. */
async function activateRemote(url: string, document: unknown, json: boolean, io: Io): Promise<number> {
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new UsageError('--url takes the service\'s base URL, e.g. http://127.0.0.1:8787');
  const token = process.env.VOUCH_TOKEN;
  let res: Response;
  try {
    res = await fetch(new URL('/v1/policy', url), { method: 'POST', headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }, body: JSON.stringify({ document }) });
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `cannot reach ${url}: ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as { chain?: string; policySet?: string; error?: { code?: string; message?: string } };
  if (!res.ok) throw new ConfigError('ERR_CONFIG', `${url} refused the activation (${res.status} ${body.error?.code ?? ''}): ${body.error?.message ?? 'no reason given'}`);
  if (json) io.out(JSON.stringify({ url, ...body, pinned: true }));
  else io.out(`activated on ${url}: chain ${body.chain}, policy set ${body.policySet}; in force now and pinned for the next start`);
  return EXIT.ok;
}
