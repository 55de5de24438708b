// vouch policy activate | status | unpin: policy versions by digest on a stopped data directory.
// A running service takes a new policy through POST /v1/policy instead (no restart).
import { activatePolicy } from '../../activate.js';
import { createMemoryStateStores } from '../../interceptors/builtin/index.js';
import { recordActivation } from '../../audit/policy-in-force.js';
import { newestPolicyRecord, recordUnpin } from '../../audit/policy-record.js';
import { loadConfigFile } from '../../policy/load-config.js';
import { logPortOf } from '../../store/log-port.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openLogForWriting, openLogReadOnly, TENANT_OPTION } from './_audit-open.js';

export const help = `vouch policy activate FILE [--data DIR] [--tenant T] [--json]
vouch policy status [--data DIR] [--tenant T] [--json]
vouch policy unpin [--data DIR] [--tenant T]

activate  validates FILE (chain config, YAML or JSON, with its Cedar files) and activates it
          fully, then stores its chain and policy documents by digest, appends a signed
          \`policy\` entry and pins it: the next \`vouch serve\` uses it for this tenant instead
          of --config. The data directory must not be in use by a running server (the log is
          locked; exit 4): for a running server use POST /v1/policy, which swaps the policy
          without a restart and pins it the same way.
status    shows the policy in force (the newest \`policy\` entry) and whether it is pinned.
unpin     appends a \`policy\` entry that unpins it: the next start uses the config file again
          (and records it if it differs). Pins live in entries, never in a mutable table.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'activate') return activate(rest, io);
  if (sub === 'status') return status(rest, io);
  if (sub === 'unpin') return unpin(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  throw new UsageError(`unknown policy command ${JSON.stringify(sub)}`);
}

async function activate(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, TENANT_OPTION, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError('policy activate takes one config FILE');
  const resolved = await loadConfigFile(positionals[0]);
  // Fully built before anything is written: a config that cannot run is never recorded.
  const policy = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    const seq = await recordActivation(logPortOf(log.origin, log.store, log.appender), log.store, policy, new Date().toISOString(), { pinned: true });
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
  const store = openLogReadOnly(values.data!, values.tenant!);
  try {
    // The newest policy entry, checked against the signed tree: the record, not a pointer.
    const rec = newestPolicyRecord(store);
    const active = rec ? { chain: rec.chain, policySet: rec.policySet } : null;
    const out = { tenant: values.tenant, active, pinned: rec?.pinned ? active : null };
    if (values.json) io.out(JSON.stringify(out));
    else {
      io.out(rec ? `in force: chain ${rec.chain}, policy set ${rec.policySet} (policy entry #${rec.seq})` : 'no policy recorded yet');
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
    const seq = await recordUnpin(logPortOf(log.origin, log.store, log.appender), log.store, new Date().toISOString());
    io.out(seq === undefined ? `tenant ${values.tenant} was not pinned: the next start uses the config file` : `unpinned tenant ${values.tenant} (policy entry #${seq}): the next start uses the config file`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}
