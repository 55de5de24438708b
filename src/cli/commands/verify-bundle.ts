// vouch verify BUNDLE: an audit bundle (directory or .tar.gz) checked offline, streaming:
// signatures, every leaf and link, the root, documents, and a replay of every decision with a
// payload. `vouch verify` dispatches here for a directory or .tar.gz (receipts are verify.ts).
import { existsSync, readFileSync } from 'node:fs';
import { verifyBundle, type BundleReport } from '../../audit/index.js';
import { nodeHashLeaf, openBundle } from '../../audit/node-bundle.js';
import { codeOf, publicMessage } from '../../errors.js';
import { parseTrust } from '../../receipt/index.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';

export const help = `vouch verify BUNDLE [--key FILE] [--no-replay] [--json]

BUNDLE is an audit bundle from \`vouch export\` (a directory or a .tar.gz). Checks, in one
streaming pass: the manifest and keys.json; the checkpoint's signature against the bundle's
keys and, with --key, against a key you trust (vkey lines or a JWKS file); that range.json
extended by the leaf hash of every entry gives the root the checkpoint signs; every entry's
seq, prev link and origin; every chain and policy document's digest; and a replay of every
decision whose payload is in the bundle. Every finding is listed with its seq.
Exit 0 clean, 1 findings, 2 usage.

  --key FILE     trusted key(s): without it, the keys came from the bundle itself
  --no-replay    structure and signatures only`;

export async function verifyBundleCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { key: { type: 'string' }, 'no-replay': { type: 'boolean', default: false } }, true);
  if (values.help) return io.out(help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError('give one BUNDLE (a directory or a .tar.gz)');
  const path = positionals[0];
  if (!existsSync(path)) throw new UsageError(`no bundle at ${path}`);
  const trusted = values.key ? parseTrust(readFileSync(values.key, 'utf8')) : undefined;
  let report: BundleReport;
  let bundle: Awaited<ReturnType<typeof openBundle>> | undefined;
  try {
    bundle = await openBundle(path);
    report = await verifyBundle(bundle.reader, { trusted, replay: !values['no-replay'], hashLeaf: nodeHashLeaf });
  } catch (e) {
    // A .tar.gz that does not unpack is itself a finding (a flipped byte breaks gzip's CRC).
    report = { ok: false, entries: 0, keysFrom: trusted ? 'trusted key' : 'bundle', signedBy: [], findings: [{ check: 'manifest', code: codeOf(e), message: `cannot read the bundle: ${publicMessage(e)}` }], notes: [], truncated: false };
  } finally {
    bundle?.close();
  }
  print(report, path, values.json!, io);
  return report.ok ? EXIT.ok : EXIT.findings;
}

function print(r: BundleReport, path: string, json: boolean, io: Io): void {
  if (json) return io.out(JSON.stringify(r));
  const where = r.range ? `${r.origin} [${r.range.from}, ${r.range.to})` : path;
  io.out(`${r.ok ? 'ok  ' : 'FAIL'} bundle ${where}: ${r.entries} entries; checkpoint signed by ${r.signedBy.join(', ') || 'no key that verified'}`);
  if (r.replay) io.out(`     replay: ${r.replay.decisions} decisions, ${r.replay.match} match, ${r.replay.mismatch} mismatch, ${r.replay.unreplayable} unreplayable`);
  for (const f of r.findings) io.out(`  - ${f.seq !== undefined ? `seq ${f.seq} ` : ''}[${f.check}] ${f.message}`);
  if (r.truncated) io.out('  - ... more findings not listed');
  for (const n of r.notes) io.out(`  note: ${n}`);
  io.out(r.ok ? 'verify bundle: clean' : `verify bundle: ${r.findings.length}${r.truncated ? '+' : ''} finding(s)`);
}

export const run = verifyBundleCommand;
