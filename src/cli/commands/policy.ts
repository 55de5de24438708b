// vouch policy activate | status | unpin: policy versions by digest on a stopped data directory.
// A running service takes a new policy through POST /v1/policy instead (no restart).
import { activatePolicy } from '../../activate.js';
import { createMemoryStateStores } from '../../interceptors/builtin/index.js';
import { PIN_META, recordActivation } from '../../http/node-server.js';
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
status    shows the policy in force (last recorded activation) and the pin, if any.
unpin     removes the pin: the next start uses the config file again (and records it).`;

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
    const before = log.appender.size;
    await recordActivation(logPortOf(log.origin, log.store, log.appender), log.store, policy, new Date().toISOString());
    log.store.setMeta(PIN_META, `${policy.chainDigest} ${policy.policyDigest}`);
    const seq = log.appender.size > before ? before : undefined;
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
    const [chain, policySet] = (store.meta('policy.active') ?? '').split(' ');
    const pin = store.meta(PIN_META) || undefined;
    const out = { tenant: values.tenant, active: chain ? { chain, policySet } : null, pinned: pin ? { chain: pin.split(' ')[0], policySet: pin.split(' ')[1] } : null };
    if (values.json) io.out(JSON.stringify(out));
    else {
      io.out(chain ? `in force: chain ${chain}, policy set ${policySet}` : 'no policy recorded yet');
      io.out(pin ? `pinned:   chain ${out.pinned!.chain} (used at the next start instead of --config)` : 'not pinned: the next start uses the config file');
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
    log.store.setMeta(PIN_META, '');
    io.out(`unpinned tenant ${values.tenant}: the next start uses the config file`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}
