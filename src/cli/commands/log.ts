// vouch log verify | tail: fsck of the tenant logs in a data directory, and a look at the newest entries.
import { existsSync } from 'node:fs';
import { ruleChecks } from '../../log/activation-check.js';
import { decodeEntry, verifyLog, type LogReport } from '../../log/index.js';
import { nodeHashLeaf } from '../../audit/node-bundle.js';
import { listTenants, loadKeys, logPath, openSqliteStore, DEFAULT_KEY_NAME } from '../../store/node.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';

export const help = `vouch log verify [--data DIR] [--tenant T] [--json]
vouch log tail [--data DIR] [--tenant T] [-n N] [--json]

verify  checks every entry (bytes, leaf hash, seq, prev link), every stored tree node, and every
        checkpoint (root and signature) of each tenant log, that every decision's chain and
        policy set were activated by an earlier \`policy\` entry [activation], and that every
        payload an entry names is stored or was erased by an \`erasure\` entry [payload]; it
        lists every finding with its seq.
        Exit 0 clean, 1 findings, 2 usage.
tail    prints the newest N entries (default 10).`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'verify') return verify(rest, io);
  if (sub === 'tail') return tail(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  throw new UsageError(`unknown log command ${JSON.stringify(sub)}`);
}

function tenantsOf(dir: string, tenant: string | undefined): string[] {
  const all = tenant ? [tenant] : listTenants(dir);
  for (const t of all) if (!existsSync(logPath(dir, t))) throw new UsageError(`no log for tenant ${t} in ${dir}`);
  return all;
}

function verify(argv: string[], io: Io): number {
  const { values } = parse(argv, { tenant: { type: 'string' }, 'key-name': { type: 'string', default: DEFAULT_KEY_NAME } });
  if (values.help) return io.out(help), EXIT.ok;
  const dir = values.data!;
  const { verifiers } = loadKeys(dir, values['key-name']);
  const reports: LogReport[] = [];
  for (const t of tenantsOf(dir, values.tenant)) {
    const store = openSqliteStore(logPath(dir, t), { readonly: true });
    try {
      reports.push(verifyLog(store, { origin: store.meta('origin') ?? `${values['key-name']}/${t}`, verifiers, checks: ruleChecks(store), hashLeaf: nodeHashLeaf }));
    } finally {
      store.close();
    }
  }
  const findings = reports.reduce((n, r) => n + r.findings.length, 0);
  if (values.json) io.out(JSON.stringify({ ok: findings === 0, logs: reports }));
  else {
    if (reports.length === 0) io.out(`no logs in ${dir}`);
    for (const r of reports) {
      io.out(`${r.findings.length === 0 ? 'ok  ' : 'FAIL'} ${r.origin}: ${r.entries} entries, ${r.nodes} tree nodes, ${r.checkpoints} checkpoints, root ${r.root.slice(0, 16)}…`);
      for (const f of r.findings) io.out(`  - ${f.seq !== undefined ? `seq ${f.seq}` : `checkpoint ${f.checkpoint ?? '-'}`} [${f.kind}] ${f.message}`);
    }
    io.out(findings === 0 ? 'log verify: clean' : `log verify: ${findings} finding(s)`);
  }
  return findings === 0 ? EXIT.ok : EXIT.findings;
}

function tail(argv: string[], io: Io): number {
  const { values } = parse(argv, { tenant: { type: 'string' }, n: { type: 'string', short: 'n', default: '10' } });
  if (values.help) return io.out(help), EXIT.ok;
  const n = intOption(values.n, 'n')!;
  for (const t of tenantsOf(values.data!, values.tenant)) {
    const store = openSqliteStore(logPath(values.data!, t), { readonly: true });
    try {
      const size = store.size();
      for (const e of store.entries(Math.max(0, size - n), size)) {
        const text = new TextDecoder().decode(e.bytes);
        if (values.json) io.out(text);
        else {
          const entry = decodeEntry(e.bytes) as Record<string, unknown>;
          const d = entry.decision as { effect?: string } | undefined;
          io.out([t, `#${entry.seq}`, entry.time, entry.type, entry.event ?? '', d?.effect ?? '', entry.principal ?? ''].join('  '));
        }
      }
    } finally {
      store.close();
    }
  }
  return EXIT.ok;
}
