// vouch payload erase: erasure on request, on a stopped data directory (a running service
// takes DELETE /v1/payloads/:digest). Digests, proofs and signatures all stay valid.
import { eraseStoredPayload, MAX_RETENTION_DAYS, retentionTargetOf, runRetention } from '../../audit/index.js';
import { parseDigest } from '../../canonical/index.js';
import { logPortOf } from '../../store/log-port.js';
import { parse, unknownCommand } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openLogForWriting, TENANT_OPTION } from './_audit-open.js';

export const help = `vouch payload erase DIGEST [--reason TEXT] [--data DIR] [--tenant T] [--json]
vouch payload expire --older-than DAYS [--data DIR] [--tenant T] [--json]

Deletes the payload stored under DIGEST (sha256:<hex>) and appends a signed \`erasure\` entry
{type: erasure, time, digest, reason?}. Entries hold only digests, so \`vouch log verify\` stays
clean and every receipt still verifies; \`vouch replay\` then reports the decisions that used it
as unreplayable (payload erased). The log must not be in use by a running server (it is locked;
exit 4): for a running server use DELETE /v1/payloads/:digest (admin role).

\`expire\` erases every payload no entry has named for DAYS days (fractions allowed), in batches,
each listed first in a signed \`erasure\` entry (by operator:retention): what \`vouch serve
--retention FILE\` does on its own every hour (docs/retention.md). Entries are never removed.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') return io.out(help), sub ? EXIT.ok : EXIT.usage;
  if (sub !== 'erase' && sub !== 'expire') throw unknownCommand('payload command', sub, ['erase', 'expire']);
  if (sub === 'expire') return expire(rest, io);
  const { values, positionals } = parse(rest, { ...TENANT_OPTION, reason: { type: 'string' } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError('payload erase takes one DIGEST');
  const digest = parseDigest(positionals[0], '/digest');
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    const r = await eraseStoredPayload(logPortOf(log.origin, log.store, log.appender), digest, { time: new Date().toISOString(), reason: values.reason, by: 'cli' });
    if (values.json) io.out(JSON.stringify({ digest, erased: true, seq: r.seq }));
    else io.out(`erased ${digest} (erasure entry #${r.seq})`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}

async function expire(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { ...TENANT_OPTION, 'older-than': { type: 'string' } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length) throw new UsageError('payload expire takes no positional arguments (--older-than DAYS)');
  const raw = values['older-than'];
  const days = raw === undefined ? NaN : Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isFinite(days) || days < 0 || days > MAX_RETENTION_DAYS) throw new UsageError(`payload expire needs --older-than DAYS (a number of days, 0..${MAX_RETENTION_DAYS}; e.g. --older-than 180)`);
  const { dataDir, log } = await openLogForWriting(values.data!, values.tenant!, values['key-name']!);
  try {
    let erased = 0;
    const seqs: number[] = [];
    let r;
    do {
      r = await runRetention(retentionTargetOf(logPortOf(log.origin, log.store, log.appender)), { days, now: new Date().toISOString() });
      erased += r.erased;
      seqs.push(...r.seqs);
    } while (r.more);
    if (values.json) io.out(JSON.stringify({ erased, entries: seqs, cutoff: r.cutoff, beforeSeq: r.beforeSeq }));
    else io.out(erased || seqs.length ? `erased ${erased} payloads no entry has named since ${r.cutoff} (erasure entries ${seqs.map((s) => `#${s}`).join(', ')})` : `nothing to erase: every stored payload was named by an entry since ${r.cutoff}`);
    return EXIT.ok;
  } finally {
    await dataDir.close();
  }
}
