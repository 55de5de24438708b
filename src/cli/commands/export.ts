// vouch export: an audit bundle of a tenant's log (DESIGN.md section 7) as a directory or one
// .tar.gz, streamed from the database (read-only: safe while the server runs).
import { createWriteStream, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { exportBundle, planExport } from '../../audit/index.js';
import { createDirSink, createTarGzSink, isTarGz, storeExportSource } from '../../audit/node-bundle.js';
import { VOUCH_ENGINE_VERSION } from '../../decide/index.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { createProgress, watchEntries, type ProgressStream } from '../progress.js';
import { withCosignatures } from '../../witness/index.js';
import { readCosignatures } from '../../witness/node-log.js';
import { openLogReadOnly, originOf, publicKeysOf, TENANT_OPTION } from './_audit-open.js';
import { exportSep3004Command } from './_export-sep3004.js';
import { consistencyProof } from '../../log/index.js';
import { buildTimestampEvidence } from '../../timestamp/evidence-format.js';
import { readTimestamps } from '../../timestamp/node-tsa.js';

export const help = `vouch export -o DIR|FILE.tar.gz [--from SEQ] [--to SEQ] [--payloads] [--data DIR] [--tenant T] [--json]
vouch export --format sep3004 -o FILE.json [--from SEQ] [--to SEQ] [--data DIR] [--tenant T]

Write an audit bundle of entries [from, to): manifest.json, the signed checkpoint for size
\`to\` (with the cosignatures the service collected for it from its witnesses), entries.jsonl
(exact entry bytes), range.json (the compact range that proves where the range starts),
keys.json (the log's key history: every key with the sizes it signs), the chain and policy
documents the entries name, payloads.jsonl (with --payloads, needed to replay) and a README for
the auditor. \`to\` defaults to the latest checkpoint; if no checkpoint was signed at exactly
\`to\`, the bundle extends to the next one (and the manifest says so). Verify it anywhere with
\`vouch verify BUNDLE --key KEY [--witness VKEY --min-witnesses K]\`.

  -o PATH      a new directory, or a file ending in .tar.gz
  --payloads   include the decisions' input payloads (erased ones are marked as erased)
  --format sep3004
               instead of a bundle, the decisions of [from, to) as one segment of SEP-3004
               audit records (Tamper-Evident Audit Record Contract, audit-record-contract/1),
               each linked to its entry and receipt; written only after every entry was
               re-hashed into the signed checkpoints. Check it with \`vouch verify FILE.json\`
               (docs/verifying-sep3004.md).`;

export async function run(argv: string[], io: Io, progressStream?: ProgressStream): Promise<number> {
  const { values } = parse(argv, {
    ...TENANT_OPTION,
    out: { type: 'string', short: 'o' },
    from: { type: 'string' },
    to: { type: 'string' },
    payloads: { type: 'boolean', default: false },
    format: { type: 'string', default: 'bundle' },
  });
  if (values.help) return io.out(help), EXIT.ok;
  const out = values.out;
  if (values.format !== 'bundle' && values.format !== 'sep3004') throw new UsageError(`--format ${values.format}: bundle (the default) or sep3004`);
  if (values.format === 'sep3004') {
    if (!out) throw new UsageError('-o FILE.json is required');
    if (values.payloads) throw new UsageError('--payloads is for bundles: SEP-3004 records carry no payloads (each names its input digest, and whether it was erased)');
    if (existsSync(out)) throw new UsageError(`${out} exists: refusing to overwrite it`);
    return exportSep3004Command({ out, data: values.data!, tenant: values.tenant!, keyName: values['key-name']!, from: intOption(values.from, 'from'), to: intOption(values.to, 'to'), json: values.json! }, io);
  }
  if (!out) throw new UsageError('-o DIR or -o FILE.tar.gz is required');
  if (existsSync(out) && (isTarGz(out) || !statSync(out).isDirectory() || readdirSync(out).length > 0)) throw new UsageError(`${out} exists: refusing to overwrite it`);
  const dir = values.data!;
  const keys = publicKeysOf(dir, values['key-name']!, values.tenant!);
  const store = openLogReadOnly(dir, values.tenant!);
  const cosignatures = readCosignatures(dir); // witnessed checkpoints carry their cosignatures in the bundle
  const stamps = readTimestamps(dir); // RFC 3161 stamps (issue 41): timestamps.json, when the service stamped
  try {
    const origin = originOf(store, values.tenant!, values['key-name']!);
    const stored = storeExportSource(store, origin);
    const base = cosignatures ? withCosignatures(stored, cosignatures) : stored;
    // On a terminal (not --json): entries counted on stderr as they are scanned, then written.
    const progress = createProgress('vouch export', { json: values.json, stream: progressStream });
    const source = watchEntries(base, progress, (call) => (call === 0 ? 'scanning entries' : 'writing entries'));
    const opts = { from: intOption(values.from, 'from'), to: intOption(values.to, 'to'), payloads: values.payloads, keys, tool: { name: 'vouch', version: VOUCH_ENGINE_VERSION }, created: new Date().toISOString(),
      timestamps: stamps && (async (from: number, to: number) => stamps.within(origin, from, to).map((t) => buildTimestampEvidence(t.note, consistencyProof(t.size, to, store), t.token))) };
    const plan = await planExport(source, opts);
    let manifest;
    try {
      if (isTarGz(out)) {
        const sink = createTarGzSink(createWriteStream(out, { flags: 'wx' }));
        manifest = await exportBundle(source, sink, opts, plan);
        await sink.finish();
      } else {
        manifest = await exportBundle(source, createDirSink(out), opts, plan);
      }
    } catch (e) {
      rmSync(out, { recursive: true, force: true }); // no half-written bundle left behind
      throw e;
    } finally {
      progress.done();
    }
    if (values.json) io.out(JSON.stringify({ out, manifest }));
    else {
      io.out(`exported ${manifest.origin} entries [${manifest.range.from}, ${manifest.range.to}) to ${out}: ${manifest.counts.entries} entries, ${manifest.counts.chains} chain and ${manifest.counts.policies} policy documents${manifest.payloads ? `, ${manifest.counts.payloads} payloads (${manifest.counts.erased} erased)` : ''}`);
      for (const n of manifest.notes) io.out(`note: ${n}`);
    }
    return EXIT.ok;
  } finally {
    store.close();
    cosignatures?.close();
    stamps?.close();
  }
}
