// vouch replay: re-run stored decisions and compare them byte for byte; with --policy, a what-if
// run of the stored inputs against a candidate config (policy-impact analysis before activation).
import { readFileSync, writeFileSync } from 'node:fs';
import { activatePolicy } from '../../decide/index.js';
import { openBundleSource, replayLog, verifyBundle, whatIf, type ReplayReport, type ReplaySource } from '../../audit/index.js';
import { whatIfJson, whatIfMarkdown, whatIfText, type WhatIfMeta } from '../../audit/what-if-format.js';
import { nodeHashLeaf, openBundle, storeReplaySource } from '../../audit/node-bundle.js';
import { readKeyFile } from './_input-kind.js';
import { createMemoryStateStores } from '../../interceptors/builtin/index.js';
import { isRemoteDeclaration } from '../../policy/index.js';
import { loadConfigFile } from '../../policy/load-config.js';
import { intOption, parse } from '../args.js';
import { createProgress, watchEntries } from '../progress.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openDbReadOnly, openLogReadOnly, TENANT_OPTION } from './_audit-open.js';

export const help = `vouch replay [--from SEQ] [--to SEQ] [--db FILE | --bundle PATH [--key FILE | --trust-bundle-keys]] [--data DIR] [--tenant T] [--json] [--all]
vouch replay --policy CANDIDATE [--fail-on-change] [--format text|md|json] [--report FILE.md|FILE.json] [...same options]

Replay re-runs every decision in [from, to) from its stored payload, its chain and policy
documents (found by digest) and its recorded context and state (rate-limit counters, session
taint, remote interceptors' answers: remote servers are never called), then compares the
canonical decision with the entry byte for byte:
  match          identical
  mismatch       differs; the JSON Pointer paths are listed
  unreplayable   payload erased or missing, document missing, engine version absent, ...
Findings: a decision whose chain and policy set no earlier \`policy\` entry activated
[activation], and a payload missing with no \`erasure\` entry for it [payload].
Exit 0 when nothing mismatched and nothing was found, 1 otherwise.

  --db FILE       a tenant log file (default: DIR/logs/TENANT.db)
  --bundle PATH   an audit bundle (directory or .tar.gz) from vouch export --payloads
  --all           list matches too (with --json)
  --key FILE      with --bundle: first check the bundle's signatures, leaves and links against
                  this trusted key (vkey lines or JWKS), as vouch verify does (without its replay);
                  exit 1 before any replay if it fails. Without --key (or --trust-bundle-keys) a
                  bundle's entries are read as they are, unchecked, and stderr says so
  --trust-bundle-keys  with --bundle: the same check against the keys inside the bundle
  --policy FILE   what-if: run the stored inputs against this candidate config (YAML or JSON)
                  and list the decisions that would flip, allow->deny and deny->allow, each with
                  what decided before (from the entry) and what decides now: the interceptor,
                  its message and, for Cedar, the determining policy ids (permits on allow,
                  forbids on deny; none listed means Cedar's default deny). Works offline on a
                  bundle: nothing but the bundle and the candidate file is read (give --key so
                  the entries are checked first).
  --fail-on-change        what-if: exit 1 when any decision flips (gate a policy change in CI);
                          without it what-if exits 0 whatever it finds
  --fail-on-unevaluable   what-if: exit 1 too when a decision could not be evaluated
                          (payload erased or not exported, state the candidate needs not recorded)
  --format text|md|json   what-if: the report on stdout (--json is --format json)
  --report FILE           what-if: also write the report to FILE, Markdown for .md, JSON for .json`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    ...TENANT_OPTION,
    from: { type: 'string' },
    to: { type: 'string' },
    db: { type: 'string' },
    bundle: { type: 'string' },
    policy: { type: 'string' },
    all: { type: 'boolean', default: false },
    'fail-on-change': { type: 'boolean', default: false },
    'fail-on-unevaluable': { type: 'boolean', default: false },
    format: { type: 'string' },
    report: { type: 'string' },
    key: { type: 'string' },
    'trust-bundle-keys': { type: 'boolean', default: false },
  });
  if (values.help) return io.out(help), EXIT.ok;
  if (values.db && values.bundle) throw new UsageError('give --db or --bundle, not both');
  const whatIfOnly = (['fail-on-change', 'fail-on-unevaluable', 'format', 'report'] as const).filter((k) => values[k] !== undefined && values[k] !== false);
  if (!values.policy && whatIfOnly.length > 0) throw new UsageError(`--${whatIfOnly[0]} needs --policy (what-if)`);
  const out = values.policy ? whatIfOutput(values) : undefined;
  if ((values.key || values['trust-bundle-keys']) && !values.bundle) throw new UsageError('--key and --trust-bundle-keys check a --bundle');
  if (values.key && values['trust-bundle-keys']) throw new UsageError('give --key or --trust-bundle-keys, not both');
  const trusted = values.key ? readKeyFile(values.key) : undefined;
  let from = intOption(values.from, 'from');
  const to = intOption(values.to, 'to');
  let source: ReplaySource;
  let close: () => void;
  let checkActivation = true;
  if (values.bundle) {
    const b = await openBundle(values.bundle);
    if (trusted || values['trust-bundle-keys']) {
      // The entries replay reads are the ones signed: checked before any is trusted as evidence.
      const v = await verifyBundle(b.reader, { trusted, trustBundleKeys: values['trust-bundle-keys'], replay: false, hashLeaf: nodeHashLeaf }).catch((e) => (b.close(), Promise.reject(e)));
      if (!v.ok) {
        b.close();
        io.err(`vouch replay: the bundle does not verify (${v.verdict}); nothing replayed`);
        for (const f of v.findings.slice(0, 20)) io.err(`  [${f.check}] ${f.seq !== undefined ? `seq ${f.seq}: ` : ''}${f.message}`);
        return EXIT.findings;
      }
    } else io.err('vouch replay: bundle entries not checked against a key (give --key FILE or --trust-bundle-keys)');
    const opened = await openBundleSource(b.reader).catch((e) => (b.close(), Promise.reject(e)));
    source = opened.source;
    from ??= opened.manifest.range.from;
    // A bundle cut out of the log lacks the policy entries before its range.
    checkActivation = opened.manifest.range.from === 0;
    close = b.close;
  } else {
    const store = values.db ? openDbReadOnly(values.db) : openLogReadOnly(values.data!, values.tenant!);
    source = storeReplaySource(store);
    close = () => store.close();
  }
  // On a terminal (not --json / --format json): the entries replayed, counted on stderr (cli/progress.ts).
  const progress = createProgress('vouch replay', { json: values.json || out?.format === 'json' });
  source = watchEntries(source, progress, () => (values.policy ? 'evaluating entries' : 'replaying entries'));
  try {
    if (values.policy) return await runWhatIf(values.policy, source, { from, to }, { ...out!, source: values.bundle ?? values.db ?? `tenant ${values.tenant} in ${values.data}` }, io);
    const report = await replayLog(source, { from, to, includeMatches: values.all, checkActivation });
    printReplay(report, values.json!, io);
    return report.mismatch > 0 || report.findings.length > 0 ? EXIT.findings : EXIT.ok;
  } finally {
    progress.done();
    close();
  }
}

type Format = 'text' | 'md' | 'json';
interface WhatIfOutput {
  format: Format;
  report?: { file: string; format: 'md' | 'json' };
  failOnChange: boolean;
  failOnUnevaluable: boolean;
}

/** Checked before any work: a typo in --format or --report fails at once, not after the run. */
function whatIfOutput(v: { json?: boolean; format?: string; report?: string; 'fail-on-change'?: boolean; 'fail-on-unevaluable'?: boolean }): WhatIfOutput {
  const format = v.format ?? (v.json ? 'json' : 'text');
  if (format !== 'text' && format !== 'md' && format !== 'json') throw new UsageError('--format takes text, md or json');
  if (v.json && format !== 'json') throw new UsageError('--json and --format disagree');
  let report: WhatIfOutput['report'];
  if (v.report !== undefined) {
    const ext = /\.(md|markdown|json)$/i.exec(v.report)?.[1]?.toLowerCase();
    if (!ext) throw new UsageError('--report FILE must end in .md or .json (the format follows the name)');
    report = { file: v.report, format: ext === 'json' ? 'json' : 'md' };
  }
  return { format, report, failOnChange: v['fail-on-change'] === true, failOnUnevaluable: v['fail-on-unevaluable'] === true };
}

async function runWhatIf(file: string, source: ReplaySource, range: { from?: number; to?: number }, out: WhatIfOutput & { source: string }, io: Io): Promise<number> {
  const resolved = await loadConfigFile(file);
  const candidate = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
  try {
    const report = await whatIf(source, candidate, { ...range, candidateHasRemote: resolved.config.interceptors.some(isRemoteDeclaration) });
    const meta: WhatIfMeta = { candidate: file, source: out.source };
    if (out.report) writeFileSync(out.report.file, out.report.format === 'json' ? whatIfJson(report, meta) + '\n' : whatIfMarkdown(report, meta));
    if (out.format === 'json') io.out(whatIfJson(report, meta, false));
    else if (out.format === 'md') io.out(whatIfMarkdown(report, meta));
    else for (const line of whatIfText(report)) io.out(line);
    if (out.failOnChange && report.changed) return EXIT.findings;
    if (out.failOnUnevaluable && report.unevaluable > 0) return EXIT.findings;
    return EXIT.ok;
  } finally {
    await candidate.close();
  }
}

function printReplay(r: ReplayReport, json: boolean, io: Io): void {
  if (json) return io.out(JSON.stringify({ ok: r.mismatch === 0 && r.findings.length === 0, ...r }));
  for (const x of r.results) {
    const what = x.status === 'mismatch' ? `differs at ${x.paths!.join(', ')}` : x.status === 'unreplayable' ? `${x.reason}: ${x.detail}` : '';
    io.out(`seq ${String(x.seq).padStart(7)}  ${x.status.padEnd(12)} ${x.event ?? ''}  ${what}${x.remote ? `  (recorded answers of ${x.remote.join(', ')})` : ''}`);
  }
  for (const f of r.findings) io.out(`seq ${String(f.seq).padStart(7)}  FINDING [${f.kind}] ${f.detail}`);
  if (r.truncated) io.out(`... more results not listed (use --json)`);
  const reasons = Object.entries(r.byReason).map(([k, n]) => `${n} ${k}`).join(', ');
  io.out(
    `replay [${r.from}, ${r.to}): ${r.decisions} decisions: ${r.match} match, ${r.mismatch} mismatch, ${r.unreplayable} unreplayable${reasons ? ` (${reasons})` : ''}` +
      `${r.remoteAnswers ? `; ${r.remoteAnswers} used recorded remote answers` : ''}; engines ${Object.entries(r.engines).map(([k, v]) => `${k} ${v}`).join(', ')}` +
      `; ${r.findings.length} finding(s)${r.activation === 'not checked' ? '; activation not checked (the bundle starts after entry 0)' : ''}`,
  );
}
