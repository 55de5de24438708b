// vouch replay: re-run stored decisions and compare them byte for byte; with --policy, a what-if
// run of the stored inputs against a candidate config (policy-impact analysis before activation).
import { activatePolicy } from '../../activate.js';
import { openBundleSource, replayLog, whatIf, type ReplayReport, type ReplaySource, type WhatIfReport } from '../../audit/index.js';
import { openBundle, storeReplaySource } from '../../audit/node-bundle.js';
import { createMemoryStateStores } from '../../interceptors/builtin/index.js';
import { isRemoteDeclaration } from '../../policy/index.js';
import { loadConfigFile } from '../../policy/load-config.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { openDbReadOnly, openLogReadOnly, TENANT_OPTION } from './_audit-open.js';

export const help = `vouch replay [--from SEQ] [--to SEQ] [--db FILE | --bundle PATH] [--data DIR] [--tenant T] [--json] [--all]
vouch replay --policy CANDIDATE [--from SEQ] [--to SEQ] [...same sources]

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
  --policy FILE   what-if: run the stored inputs against this candidate config (YAML or JSON)
                  and list the decisions that would flip, allow->deny and deny->allow.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    ...TENANT_OPTION,
    from: { type: 'string' },
    to: { type: 'string' },
    db: { type: 'string' },
    bundle: { type: 'string' },
    policy: { type: 'string' },
    all: { type: 'boolean', default: false },
  });
  if (values.help) return io.out(help), EXIT.ok;
  if (values.db && values.bundle) throw new UsageError('give --db or --bundle, not both');
  let from = intOption(values.from, 'from');
  const to = intOption(values.to, 'to');
  let source: ReplaySource;
  let close: () => void;
  let checkActivation = true;
  if (values.bundle) {
    const b = await openBundle(values.bundle);
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
  try {
    if (values.policy) return await runWhatIf(values.policy, source, { from, to }, values.json!, io);
    const report = await replayLog(source, { from, to, includeMatches: values.all, checkActivation });
    printReplay(report, values.json!, io);
    return report.mismatch > 0 || report.findings.length > 0 ? EXIT.findings : EXIT.ok;
  } finally {
    close();
  }
}

async function runWhatIf(file: string, source: ReplaySource, range: { from?: number; to?: number }, json: boolean, io: Io): Promise<number> {
  const resolved = await loadConfigFile(file);
  const candidate = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
  try {
    const report = await whatIf(source, candidate, { ...range, candidateHasRemote: resolved.config.interceptors.some(isRemoteDeclaration) });
    printWhatIf(report, json, io);
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

function printWhatIf(r: WhatIfReport, json: boolean, io: Io): void {
  if (json) return io.out(JSON.stringify(r));
  for (const f of r.flips) {
    io.out(`seq ${String(f.seq).padStart(7)}  ${f.from} -> ${f.to}  ${f.event} ${f.resource ?? ''} ${f.principal ? `by ${f.principal}` : ''}${f.abortedAt ? `  (${f.abortedAt.interceptor}: ${f.abortedAt.reason})` : ''}`);
  }
  if (r.truncated) io.out('... more flips not listed (use --json)');
  const skipped = Object.entries(r.byReason).map(([k, n]) => `${n} ${k}`).join(', ');
  io.out(
    `what-if [${r.from}, ${r.to}) against chain ${r.candidate.chain.slice(0, 19)}…: ${r.evaluated} of ${r.decisions} decisions evaluated: ` +
      `${r.allowToDeny} allow->deny, ${r.denyToAllow} deny->allow, ${r.unchanged} unchanged${r.unevaluable ? `; ${r.unevaluable} not evaluated (${skipped})` : ''}`,
  );
}
