// vouch verify BUNDLE: an audit bundle (directory or .tar.gz) checked offline, streaming:
// signatures, every leaf and link, the root, documents, and a replay of every decision with a
// payload. `vouch verify` dispatches here for a directory or .tar.gz (receipts are verify.ts).
import { existsSync, readFileSync } from 'node:fs';
import { emptyBundleReport, verifyBundle, type BundleReader, type BundleReport } from '../../audit/index.js';
import { nodeHashLeaf, openBundle } from '../../audit/node-bundle.js';
import { codeOf, publicMessage } from '../../errors.js';
import { describePostQuantum, parseNewerCheckpoint, type Trust } from '../../receipt/index.js';
import { readKeyFile } from './_input-kind.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { counted, createProgress, type Progress, type ProgressStream } from '../progress.js';
import { FILES } from '../../audit/bundle-format.js';
import { WITNESS_OPTIONS, witnessPolicy, type WitnessPolicy } from './_witness-policy.js';
import { requirePqOption } from './_require-pq.js';
import { readTsaCert } from './_tsa-check.js';
import { checkTimestamp } from '../../timestamp/index.js';

export const help = `vouch verify BUNDLE [--key FILE | --trust-bundle-keys] [--checkpoint NEWER] [--witness VKEY]... [--min-witnesses K] [--tsa-cert FILE] [--require-pq any|mldsa65] [--classical-ok] [--no-replay] [--json]

BUNDLE is an audit bundle from \`vouch export\` (a directory or a .tar.gz). Checks, in one
streaming pass: the manifest and keys.json; the checkpoint's signature against the bundle's
keys and, with --key, against a key you trust (vkey lines, a JWKS or a keys.json); that range.json
extended by the leaf hash of every entry gives the root the checkpoint signs; every entry's
seq, prev link and origin; every chain and policy document's digest; and a replay of every
decision whose payload is in the bundle. Every finding is listed with its seq.
Exit 0 clean, 1 findings (or keys not pinned), 2 usage, 3 refused as input: a bundle past its
limits (ERR_BUNDLE_LIMIT: line, file, total size, file count, gzip ratio) or holding links,
devices, fifos or duplicate files (ERR_BUNDLE_FILE). Files the format lacks are findings.

  --key FILE           trusted key(s). Without it the keys came from the bundle itself, which
                       anyone can re-sign with their own: the verdict is "self-consistent, keys
                       not pinned" and the exit code 1
  --trust-bundle-keys  accept the bundle's own keys (exit 0 when self-consistent)
  --checkpoint NEWER   a newer checkpoint of the log (GET /v1/proofs/consistency?from=<bundle end>):
                       it must extend the bundle's. Without it, or with a bare checkpoint of another
                       size (no proof): "truncation: not checked", naming the proof to fetch
  --witness VKEY       a witness the bundle's checkpoint must be cosigned by (a cosigner vkey,
                       type 0x04 Ed25519 or 0x06 ML-DSA-44, or a file of them); repeatable. The
                       verdict names each witness that cosigned and the latest cosignature time
  --min-witnesses K    at least K distinct trusted witnesses (default 1 when --witness is given)
  --tsa-cert FILE      the RFC 3161 time-stamping authority you trust (its certificate or CA, PEM
                       or DER): each stamp in timestamps.json must verify against it over the exact
                       note bytes, the note must be signed by the log's keys and be a prefix of the
                       bundle's tree; the verdict says "time-stamped by <TSA> at <time>" (the
                       earliest). Without it the stamps are "not checked", never a finding
  --require-pq R       \`any\` (default): an ML-DSA-44 or ML-DSA-65 signature meets the post-quantum
                       requirement; \`mldsa65\`: only ML-DSA-65. The summary line and --json
                       ("postQuantum") name the one that counted.
  --classical-ok       accept a checkpoint whose only valid signatures are classical (Ed25519);
                       otherwise an ML-DSA-65 signature is required
  --no-replay          structure and signatures only

The verdict names the algorithms and key ids that verified.`;

export async function verifyBundleCommand(argv: string[], io: Io, progressStream?: ProgressStream): Promise<number> {
  const { values, positionals } = parse(argv, { key: { type: 'string' }, 'no-replay': { type: 'boolean', default: false }, 'trust-bundle-keys': { type: 'boolean', default: false }, 'classical-ok': { type: 'boolean', default: false }, 'require-pq': { type: 'string' }, 'tsa-cert': { type: 'string' }, checkpoint: { type: 'string' }, ...WITNESS_OPTIONS }, true);
  if (values.help) return io.out(help), EXIT.ok;
  const requirePq = requirePqOption(values['require-pq']);
  if (positionals.length !== 1) throw new UsageError('give one BUNDLE (a directory or a .tar.gz)');
  const path = positionals[0];
  if (!existsSync(path)) throw new UsageError(`no bundle at ${path}`);
  if (values.key && values['trust-bundle-keys']) throw new UsageError('give --key or --trust-bundle-keys, not both');
  let trusted: Trust | undefined;
  let pinned: ReturnType<typeof readTsaCert> | undefined;
  try {
    trusted = values.key ? readKeyFile(values.key) : undefined;
    pinned = values['tsa-cert'] === undefined ? undefined : readTsaCert(values['tsa-cert']);
  } catch (e) {
    return io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`), EXIT.input; // not a verdict on the bundle
  }
  const newer = values.checkpoint ? parseNewerCheckpoint(readFileSync(values.checkpoint, 'utf8'), `the checkpoint file ${values.checkpoint}`) : undefined;
  let witnesses: WitnessPolicy;
  try {
    witnesses = witnessPolicy(values);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`), EXIT.input;
  }
  let report: BundleReport;
  let bundle: Awaited<ReturnType<typeof openBundle>> | undefined;
  const progress = createProgress('vouch verify', { json: values.json, stream: progressStream });
  try {
    bundle = await openBundle(path);
    report = await verifyBundle(await withProgress(bundle.reader, progress), { trusted, trustBundleKeys: values['trust-bundle-keys'], classicalOk: values['classical-ok'], requirePq, newer, witnesses: witnesses.check, checkTimestamp: (ev, o) => checkTimestamp(ev, { ...o, pinned }), replay: !values['no-replay'], hashLeaf: nodeHashLeaf });
  } catch (e) {
    // A bundle past its limits, or holding links or devices, is refused as input (exit 3), not verified.
    if (codeOf(e) === 'ERR_BUNDLE_LIMIT' || codeOf(e) === 'ERR_BUNDLE_FILE') return io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`), values.json && io.out(JSON.stringify({ ok: false, error: { code: codeOf(e), message: publicMessage(e) } })), EXIT.input;
    // A .tar.gz that does not unpack is itself a finding (a flipped byte breaks gzip's CRC).
    report = { ...emptyBundleReport({ trusted }), findings: [{ check: 'manifest', code: codeOf(e), message: `cannot read the bundle: ${publicMessage(e)}` }] };
  } finally {
    progress.done();
    bundle?.close();
  }
  print(report, path, values.json!, io, witnesses);
  return report.ok ? EXIT.ok : EXIT.findings;
}

/** The reader with entries.jsonl counted as verifyBundle streams it (the total from the manifest's range, when it parses). */
async function withProgress(reader: BundleReader, progress: Progress): Promise<BundleReader> {
  let total: number | undefined;
  try {
    const m = JSON.parse((await reader.text(FILES.manifest)) ?? 'null') as { range?: { from?: unknown; to?: unknown } } | null;
    if (typeof m?.range?.from === 'number' && typeof m.range.to === 'number') total = m.range.to - m.range.from;
  } catch {
    // verifyBundle reports a bad manifest; progress just has no total
  }
  return {
    text: (name) => reader.text(name),
    bytes: (path) => reader.bytes(path),
    unknown: reader.unknown,
    lines: (name) => {
      const lines = reader.lines(name);
      if (!lines || name !== FILES.entries) return lines;
      progress.stage('verifying entries', total);
      return counted(lines, progress);
    },
  };
}

function print(r: BundleReport, path: string, json: boolean, io: Io, witnesses: WitnessPolicy): void {
  if (json) return io.out(JSON.stringify({ ...r, ...witnesses.json() }));
  const where = r.range ? `${r.origin} [${r.range.from}, ${r.range.to})` : path;
  const by = r.signatures.map((x) => `${x.name} (${x.alg} ${x.keyId}, ${x.source})`).join(', ');
  io.out(`${r.ok ? 'ok  ' : 'FAIL'} bundle ${where}: ${r.entries} entries; checkpoint signed by ${by || 'no key that verified'}${r.signatures.length ? `; ${describePostQuantum({ classicalOnly: r.classicalOnly, postQuantum: r.postQuantum ?? undefined, requirePq: r.requirePq })}` : ''}`);
  if (r.witnessCheck?.ok) io.out(`     witnesses: ${r.witnessCheck.detail}`);
  if (r.timestamped?.status === 'verified') io.out(`     time-stamped by ${r.timestamped.tsa} at ${r.timestamped.genTime}: entries [0, ${r.timestamped.size}) existed by then`);
  else if (r.timestamped) io.out(`     TSA time-stamp: ${r.timestamped.detail}`);
  if (r.replay) io.out(`     replay: ${r.replay.decisions} decisions, ${r.replay.match} match, ${r.replay.mismatch} mismatch, ${r.replay.unreplayable} unreplayable`);
  for (const f of r.findings) io.out(`  - ${f.seq !== undefined ? `seq ${f.seq} ` : ''}[${f.check}] ${f.message}`);
  if (r.truncated) io.out('  - ... more findings not listed');
  for (const n of r.notes) io.out(`  note: ${n}`);
  if (r.verdict !== 'findings') io.out(`  truncation: ${r.truncation}${r.truncation === 'checked' ? '' : r.truncationNote !== undefined ? `: ${r.truncationNote}` : ' (give --checkpoint with a newer checkpoint to prove the log was not cut after the bundle)'}`);
  if (r.verdict === 'findings') io.out(`verify bundle: ${r.findings.length}${r.truncated ? '+' : ''} finding(s)`);
  else if (r.verdict === 'clean') io.out(`verify bundle: clean (truncation: ${r.truncation})`);
  else io.out(`verify bundle: self-consistent, keys not pinned${r.ok ? ' (accepted by --trust-bundle-keys)' : ': pass --key with keys you trust, or --trust-bundle-keys'} (truncation: ${r.truncation})`);
}

export const run = verifyBundleCommand;
