// vouch log verify | archive | prune | tail: the dispatcher and help text; verify itself is in _log-verify.ts.
import { existsSync } from 'node:fs';
import { decodeEntry } from '../../log/index.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { acquireLogLock, defaultArchiveRoot, loadKeys, logPath, openSqliteStore, pruneToArchive, syncArchive, tenantArchiveDir, DEFAULT_KEY_NAME } from '../../store/node.js';
import { intOption, parse, unknownCommand } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { archiveOption } from './_archive-option.js';
import { followLogs } from './_log-follow.js';
import { tenantsOf } from './_log-tenants.js';
import { verifyLogs } from './_log-verify.js';
import { formatTailLine } from './_tail-line.js';

export const help = `vouch log verify [--data DIR] [--archive DIR] [--tenant T] [--threads 1|2] [--json]
vouch log archive [--data DIR] [--archive DIR] [--tenant T] [--json]
vouch log prune --tenant T [--data DIR] [--archive DIR] [--vacuum] [--json]
vouch log tail [--data DIR] [--tenant T] [-n N] [--json] [--follow [--interval MS]]

verify  checks every entry (bytes, leaf hash, seq, prev link), every stored tree node, and every
        checkpoint (root and signature) of each tenant log, that every decision's chain and
        policy set were activated by an earlier \`policy\` entry [activation], and that every
        payload an entry names is stored or was erased by an \`erasure\` entry [payload]; it
        lists every finding with its seq. Entries after the newest checkpoint (signed by no one
        yet) are listed as unsigned, with whether their commit tag matches the signing seed: the
        check start-up makes before it signs them; a missing or wrong tag is a finding.
        Sealed entries and tree nodes are read from the tile archive (--archive, default
        DIR/archive; docs/archive.md) where it has them, the rest from the database, so every
        archived byte is checked against the signed checkpoints too [archive]. A pruned log
        whose archive directory is missing (the database restored alone) gives one finding,
        ERR_ARCHIVE_MISSING, and only the entries from the watermark up are checked
        (docs/keeping-logs.md#restoring-a-pruned-log).
        On two cores or more (--threads 2, the default there) a second thread reads, hashes and
        rebuilds the tree (reading the archive too, where there is one) while this one checks
        the entries (docs/performance.md#log-verify); a pruned log, and --threads 1, verify on
        one thread.
        Exit 0 clean, 1 findings, 2 usage.
archive brings each tenant's tile archive (ARCHIVE/<tenant>/: checkpoint, tile/<L>/<N>,
        tile/entries/<N>, C2SP tlog-tiles) up to its newest stored checkpoint, reading the
        database read-only; \`vouch serve\` does the same in the background after commits. A tile
        already there with other bytes is never overwritten: exit 1, ERR_ARCHIVE_MISMATCH.
prune   drops sealed history from the tenant's database (docs/archive.md#pruning): brings the
        archive up to date, reads each full tile back and checks it against the log's tree and
        the archive's signed checkpoint, then deletes in one transaction the entry rows (policy,
        pin and key entries kept) and tree nodes below level 8 of those tiles; reads of
        them come from the archive from then on, checked. Back up the database and the archive
        first: afterwards the archive is the only copy of that history. Stop the service first
        (it takes the tenant's lock). --vacuum gives the freed pages back to the file system.
        Exit 0 pruned (or nothing to prune), 1 the archive does not check (nothing pruned).
tail    prints the newest N entries (default 10), one line each: tenant, seq, time, type, event,
        tool (or prompt, resource), effect, principal, and for a deny the interceptor that denied
        and its reason (control characters shown escaped). --json prints each entry as it is signed, one
        JSON object per line. --follow keeps printing entries as they are appended (polling the
        database read-only every --interval ms, default 500; logs created meanwhile included)
        until SIGINT or SIGTERM, then exits 0: \`vouch log tail -f --json | your-siem-shipper\`.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'verify') return verifyLogs(rest, io, help);
  if (sub === 'tail') return tail(rest, io);
  if (sub === 'archive') return archive(rest, io);
  if (sub === 'prune') return prune(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  throw unknownCommand('log command', sub, ['verify', 'archive', 'prune', 'tail']);
}

async function archive(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { tenant: { type: 'string' }, archive: { type: 'string' } });
  if (values.help) return io.out(help), EXIT.ok;
  const root = archiveOption(values.archive) ?? defaultArchiveRoot(values.data!);
  const done: { tenant: string; dir: string; size: number; written: number; kept: number }[] = [];
  for (const t of tenantsOf(values.data!, values.tenant)) {
    const store = openSqliteStore(logPath(values.data!, t), { readonly: true });
    try {
      const dir = tenantArchiveDir(root, t);
      done.push({ tenant: t, dir, ...(await syncArchive(dir, store)) });
    } finally {
      store.close();
    }
  }
  if (values.json) io.out(JSON.stringify({ ok: true, logs: done }));
  else for (const d of done) io.out(`archive ${d.dir}: checkpoint at ${d.size}, ${d.written} file(s) written, ${d.kept} already there`);
  return EXIT.ok;
}

/**
 * An operator's act, not a background one: it ends the database's copy of that history, so it runs
 * after a backup, with the service stopped (the tenant's lock), and says what it dropped.
 */
async function prune(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { tenant: { type: 'string' }, archive: { type: 'string' }, vacuum: { type: 'boolean', default: false }, 'key-name': { type: 'string', default: DEFAULT_KEY_NAME } });
  if (values.help) return io.out(help), EXIT.ok;
  if (!values.tenant) throw new UsageError('vouch log prune needs --tenant T: it drops that log\'s sealed history from its database (back up first; docs/archive.md)');
  const dir = values.data!;
  const root = archiveOption(values.archive) ?? defaultArchiveRoot(dir);
  const [t] = tenantsOf(dir, values.tenant);
  const archiveDir = tenantArchiveDir(root, t);
  const files = loadKeys(dir, values['key-name']).keys;
  const lock = acquireLogLock(dir, t);
  try {
    const store = openSqliteStore(logPath(dir, t), { archive: archiveDir });
    try {
      const origin = store.meta('origin') ?? `${values['key-name']}/${t}`;
      const { keys } = tenantKeysForVerify(store, origin, files, values['key-name']!);
      const sync = await syncArchive(archiveDir, store);
      const r = await pruneToArchive(store, archiveDir, { origin, verifiers: keys.verifiers });
      if (values.vacuum) store.vacuum();
      if (values.json) io.out(JSON.stringify({ ok: true, tenant: t, archive: archiveDir, written: sync.written, ...r }));
      else io.out(`prune ${t}: archive ${archiveDir} at ${r.archived}; entries below ${r.below} now in the archive only (was ${r.from}): ${r.entries} entry rows and ${r.nodes} tree nodes deleted${values.vacuum ? ', file vacuumed' : ''}`);
    } finally {
      store.close();
    }
  } finally {
    lock.release();
  }
  return EXIT.ok;
}

function tail(argv: string[], io: Io): number | Promise<number> {
  const { values } = parse(argv, { tenant: { type: 'string' }, n: { type: 'string', short: 'n', default: '10' }, follow: { type: 'boolean', short: 'f', default: false }, interval: { type: 'string', default: '500' } });
  if (values.help) return io.out(help), EXIT.ok;
  const n = intOption(values.n, 'n')!;
  const line = (t: string, bytes: Uint8Array) => {
    if (values.json) return io.out(new TextDecoder().decode(bytes));
    io.out(formatTailLine(t, decodeEntry(bytes) as Record<string, unknown>));
  };
  if (values.follow) return follow(values.data!, values.tenant, n, intOption(values.interval, 'interval')!, (t, b) => line(t, b), io);
  for (const t of tenantsOf(values.data!, values.tenant)) {
    const store = openSqliteStore(logPath(values.data!, t), { readonly: true });
    try {
      const size = store.size();
      for (const e of store.entries(Math.max(0, size - n), size)) line(t, e.bytes);
    } finally {
      store.close();
    }
  }
  return EXIT.ok;
}

/** Follow until SIGINT/SIGTERM: the signal ends the poll loop, the databases close, exit 0. */
async function follow(data: string, tenant: string | undefined, last: number, intervalMs: number, out: (t: string, bytes: Uint8Array) => void, io: Io): Promise<number> {
  if (intervalMs < 10) throw new UsageError('--interval must be at least 10 ms');
  if (!existsSync(data)) throw new UsageError(`no data directory ${data}`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // On stderr, so stdout stays entries only: the follower is installed and stops cleanly from here on.
  io.err(`vouch log tail: following ${tenant === undefined ? 'every tenant log' : `tenant ${tenant}`} in ${data} (SIGINT/SIGTERM stops)`);
  try {
    await followLogs({ data, tenant, last, intervalMs, signal: stop.signal, emit: (t, e) => out(t, e.bytes) });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return EXIT.ok;
}
