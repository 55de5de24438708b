// `vouch log verify`: fsck of each tenant log in a data directory (entries, tree, checkpoints, archive,
// rules), printed as text or JSON. The help text stays with the dispatcher (log.ts), which passes it in.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ruleChecks, type EntryCheck } from '../../log/activation-check.js';
import { commitKeyOf, keyHistoryCheck, verifyLog, verifyLogPages, verifyLogTail, type KeyWindow, type LogReport, type VerifiedSignature } from '../../log/index.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { pendingMldsaSeed } from '../../store/key-rotation.js';
import { threadPages } from '../../store/verify-thread.js';
import { archiveMissing, checkArchiveEdge, checkPrunedOpen, defaultArchiveRoot, loadKeys, logPath, openArchiveView, openPayloadLedger, openSqliteStore, tenantArchiveDir, DEFAULT_KEY_NAME } from '../../store/node.js';
import { codeOf, type ErrorCode } from '../../errors.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { archiveOption } from './_archive-option.js';
import { tenantsOf } from './_log-tenants.js';

const prunedBelowOrUnknown = (store: { prunedBelow(): number }): number | undefined => {
  try {
    return store.prunedBelow();
  } catch {
    return undefined;
  }
};

/** `help` is printed for --help: it is passed in so the one help text stays in log.ts, which this module does not import. */
export async function verifyLogs(argv: string[], io: Io, help: string): Promise<number> {
  const { values } = parse(argv, { tenant: { type: 'string' }, archive: { type: 'string' }, 'key-name': { type: 'string', default: DEFAULT_KEY_NAME }, threads: { type: 'string' } });
  if (values.help) return io.out(help), EXIT.ok;
  if (values.threads !== undefined && values.threads !== '1' && values.threads !== '2') throw new UsageError('--threads takes 1 or 2');
  const threads = values.threads === undefined ? Math.min(2, availableParallelism()) : Number(values.threads);
  const dir = values.data!;
  const archiveRoot = archiveOption(values.archive, { mustExist: true }) ?? defaultArchiveRoot(dir);
  const loaded = loadKeys(dir, values['key-name']);
  const files = loaded.keys;
  // The seed is read anyway: with it, entries a crash left unsigned are checked as start-up checks them.
  // ...and the incoming seed of a rotation that stopped half way: start-up (`vouch keys rotate`) accepts both.
  const incoming = pendingMldsaSeed(dir);
  const commitKeys = [commitKeyOf(loaded.mldsaSeed), ...(incoming ? [commitKeyOf(incoming)] : [])];
  // unchecked: a pruned log whose archive directory is missing; only the entries from `below` up were read.
  const reports: (LogReport & { keys: UsedKey[]; archive: { dir: string; size: number; sealed: number }; unchecked?: { below: number; archive: string } })[] = [];
  for (const t of tenantsOf(dir, values.tenant)) {
    const archiveDir = tenantArchiveDir(archiveRoot, t);
    // A pruned log reads its sealed entries from this archive; a watermark it does not back is a finding, not a crash.
    const store = openSqliteStore(logPath(dir, t), { readonly: true, archive: archiveDir, skipArchiveCheck: true });
    let checks: EntryCheck[] = [];
    try {
      const origin = store.meta('origin') ?? `${values['key-name']}/${t}`;
      const below = prunedBelowOrUnknown(store) ?? 0;
      // The whole archive directory gone: a restore that brought back the database alone (docs/keeping-logs.md#restoring-a-pruned-log).
      // Say that, once, and check what the database still holds, rather than list every pruned read as refused.
      const restoredAlone = below > 0 && !existsSync(archiveDir);
      const pruned: { code: ErrorCode; message: string }[] = [];
      if (!restoredAlone) try {
        checkPrunedOpen(store);
      } catch (e) {
        pruned.push({ code: codeOf(e), message: `pruned log: ${(e as Error).message}` });
      }
      // Key history (issue 18): each checkpoint is checked with the keys of its time.
      const { keys, problems } = tenantKeysForVerify(store, origin, files, values['key-name']!, { commitKeys });
      const used = new Map<string, UsedKey>();
      if (restoredAlone) {
        const report = verifyLogTail(store, below, { origin, verifiers: keys.verifiers, commitKeys, onSigned: (sigs) => countKeys(used, sigs) });
        report.findings.unshift({ kind: 'archive', code: 'ERR_ARCHIVE_MISSING', message: archiveMissing(below, archiveDir, `pass --archive DIR, the directory that holds ${t}/`).message });
        for (const p of problems) report.findings.push({ kind: 'key', seq: p.seq, code: 'ERR_VERIFY_ENTRY', message: p.message });
        reports.push({ ...report, keys: [...used.values()], archive: { dir: archiveDir, size: 0, sealed: 0 }, unchecked: { below, archive: archiveDir } });
        continue;
      }
      // The payload check's per-payload state goes to a scratch file of the verifier's own (issue 40: memory does not grow with the log).
      checks = [...ruleChecks(store, openPayloadLedger()), keyHistoryCheck({ name: keys.history.keys[0]?.name ?? keys.name, keys: keys.history.keys.filter((k) => k.window.from === 0) }, keys.history)];
      // Sealed history from the archive (where it has it), the tail from SQLite: one rebuild checks both.
      const view = openArchiveView(archiveDir, store, { origin, verifiers: keys.verifiers, rowsFrom: store.prunedBelow() });
      const opts = { origin, verifiers: keys.verifiers, checks, commitKeys, onSigned: (sigs: VerifiedSignature[]) => countKeys(used, sigs) };
      // The reading thread opens the file alone, and the archive through the same view when this
      // one reads from it (a pruned log, or a watermark that cannot be read, is verified on this
      // thread, which lists it as a finding); the view's findings come back from it.
      const threadView = view.size > 0 ? { origin, size: view.size, rowsFrom: 0 } : undefined;
      const report =
        threads > 1 && prunedBelowOrUnknown(store) === 0 // nothing pruned: the view compares every row (rowsFrom 0)
          ? await verifyLogPages(view.storage, opts, (size, page) => threadPages({ path: logPath(dir, t), archive: archiveDir, view: threadView }, size, page, { onArchive: (f) => view.findings.push(...f) }))
          : verifyLog(view.storage, opts);
      for (const p of problems) report.findings.push({ kind: 'key', seq: p.seq, code: 'ERR_VERIFY_ENTRY', message: p.message });
      for (const f of [...view.findings, ...checkArchiveEdge(archiveDir, view)]) report.findings.push({ kind: 'archive', code: 'ERR_ARCHIVE_MISMATCH', message: `archive ${f.message}` });
      // Each pruned tile as the service reads it (sealed-tiles.ts): the refusal names the file.
      for (let seq = 0; seq < store.prunedBelow() && pruned.length < 16; seq += 256) {
        try {
          for (const _ of store.entries(seq, seq + 1));
        } catch (e) {
          pruned.push({ code: codeOf(e), message: `pruned log: ${(e as Error).message}` });
        }
      }
      for (const f of pruned) report.findings.push({ kind: 'archive', code: f.code, message: f.message });
      reports.push({ ...report, keys: [...used.values()], archive: { dir: archiveDir, size: view.size, sealed: view.sealed } });
    } finally {
      for (const c of checks) c.close?.();
      store.close();
    }
  }
  const findings = reports.reduce((n, r) => n + r.findings.length, 0);
  if (values.json) io.out(JSON.stringify({ ok: findings === 0, logs: reports }));
  else {
    if (reports.length === 0) io.out(`no logs in ${dir}`);
    for (const r of reports) {
      const entries = r.unchecked ? `${r.entries} entries checked (seq ${r.unchecked.below}..${r.size - 1}); entries below ${r.unchecked.below} not checked: their archive is missing;` : `${r.entries} entries,`;
      io.out(`${r.findings.length === 0 ? 'ok  ' : 'FAIL'} ${r.origin}: ${entries} ${r.nodes} tree nodes, ${r.checkpoints} checkpoints${r.unchecked ? ` at or past ${r.unchecked.below}` : ''}, root ${r.root.slice(0, 16)}…`);
      io.out(`  archive ${r.archive.dir}: ${r.unchecked ? 'missing' : r.archive.size === 0 ? 'none (every entry read from the database)' : `checkpoint at ${r.archive.size}, ${r.archive.sealed} entries read from sealed tiles`}`);
      if (r.unsigned) io.out(`  unsigned: ${r.unsigned.entries} entries after the newest checkpoint are covered by no signature yet; their commit tag: ${r.unsigned.tag}`);
      for (const k of r.keys) io.out(`  key ${k.name}+${k.keyId} ${k.alg}: verified ${k.checkpoints} checkpoint(s)${k.window ? `, signs sizes ${k.window.from}..${k.window.to ?? ''}${k.window.revokedAfter !== undefined ? `, revoked after ${k.window.revokedAfter}` : ''}` : ''}`);
      for (const f of r.findings) io.out(`  - ${f.seq !== undefined ? `seq ${f.seq}` : `checkpoint ${f.checkpoint ?? '-'}`} [${f.kind}] ${f.message}`);
    }
    io.out(findings === 0 ? 'log verify: clean' : `log verify: ${findings} finding(s)`);
  }
  return findings === 0 ? EXIT.ok : EXIT.findings;
}

/** A key `log verify` verified checkpoints with (issue 15: which key ids and algorithms). */
interface UsedKey {
  name: string;
  alg: string;
  keyId: string;
  checkpoints: number;
  window?: KeyWindow;
}

function countKeys(used: Map<string, UsedKey>, sigs: VerifiedSignature[]): void {
  for (const s of sigs) {
    const k = `${s.name}+${s.keyId}`;
    const u = used.get(k) ?? { name: s.name, alg: s.alg, keyId: s.keyId, checkpoints: 0, ...(s.window ? { window: s.window } : {}) };
    u.checkpoints++;
    used.set(k, u);
  }
}
