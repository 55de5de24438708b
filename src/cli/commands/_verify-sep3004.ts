// vouch verify FILE.json for a SEP-3004 export: the contract's checks C-REC-1..7, each reported.
// Needs no key: the records' own chain is what SEP tools check; the vouch link is the receipt's.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { checkSep3004Links, SEP3004_FORMAT, verifySep3004 } from '../../audit/index.js';
import { storeExportSource } from '../../audit/node-bundle.js';
import { InputError, codeOf, publicMessage } from '../../errors.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openVerifiedReadOnly, originOf, TENANT_OPTION } from './_audit-open.js';
import { sep3004ReceiptOf } from './_export-sep3004.js';

/** vouch writes `format` first; jq and other tools keep member order, whatever whitespace they add. */
const HEAD = new RegExp(`^\\s*\\{\\s*"format"\\s*:\\s*"${SEP3004_FORMAT.replace(/[./]/g, '\\$&')}"`);
const HEAD_BYTES = 256;

/** Whether `vouch verify` was given a SEP-3004 export: `--format sep3004`, or a file that starts as vouch writes one (another tool's export: say --format sep3004). */
export function isSep3004Argv(argv: string[]): boolean {
  if (argv.some((a, i) => (a === '--format' && argv[i + 1] === 'sep3004') || a === '--format=sep3004')) return true;
  const path = argv[0];
  if (path === undefined || path.startsWith('-')) return false;
  try {
    if (!statSync(path).isFile()) return false;
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return HEAD.test(buf.subarray(0, n).toString('utf8'));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

export async function verifySep3004Command(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { format: { type: 'string' }, ...TENANT_OPTION }, true);
  // --data has a default for every command; here it is a request (compare with the log), so only when written.
  const withLog = argv.some((a) => a === '--data' || a.startsWith('--data='));
  if (positionals.length !== 1) throw new UsageError('give exactly one SEP-3004 export file');
  if (values.format !== undefined && values.format !== 'sep3004') throw new UsageError(`--format ${values.format}: only sep3004 selects a record export`);
  const [path] = positionals;
  let doc: unknown;
  try {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new InputError('ERR_INPUT', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    try {
      doc = JSON.parse(text);
    } catch {
      throw new InputError('ERR_JSON_PARSE', `${path} is not JSON: a SEP-3004 export is one JSON object with "records" and "attestation_manifest"`);
    }
  } catch (e) {
    io.err(`vouch verify: error ${codeOf(e)}: ${publicMessage(e)}`);
    return EXIT.input;
  }
  const report = verifySep3004(doc);
  if (withLog) {
    const store = openVerifiedReadOnly(values.data!, values.tenant!, values['key-name']!);
    try {
      const origin = originOf(store, values.tenant!, values['key-name']!);
      const link = await checkSep3004Links(doc, { origin, entries: storeExportSource(store, origin).entries, signedSize: store.size(), receipt: sep3004ReceiptOf(values.tenant!) });
      report.checks.push(link);
      report.ok &&= link.status === 'pass';
    } finally {
      store.close();
    }
  }
  if (values.json) {
    io.out(JSON.stringify({ valid: report.ok, verdict: report.ok ? 'VALID' : 'INVALID', file: path, format: 'sep3004', records: report.records, ...(report.origin && { origin: report.origin }), ...(report.range && { range: report.range }), checks: report.checks }));
    return report.ok ? EXIT.ok : EXIT.findings;
  }
  const where = report.origin && report.range ? ` of ${report.origin} [${report.range.from}, ${report.range.to})` : '';
  io.out(`${path}: ${report.ok ? 'VALID' : 'INVALID'} SEP-3004 records (audit-record-contract/1)${where}: ${report.records} records, ${report.checks.length} checks`);
  for (const c of report.checks) {
    io.out(`  ${c.status === 'pass' ? '✓' : c.status === 'fail' ? '✗' : '-'} ${c.id} ${c.title}: ${c.detail}`);
    for (const f of c.findings) io.out(`      ${f.record !== undefined ? `record ${f.record}${f.event_id ? ` (${f.event_id})` : ''}: ` : ''}${f.message}`);
    if (c.omitted) io.out(`      ... and ${c.omitted} more`);
  }
  return report.ok ? EXIT.ok : EXIT.findings;
}
