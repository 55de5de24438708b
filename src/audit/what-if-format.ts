// The what-if report as text lines (terminal), Markdown (a review or CI comment) and JSON (machines).
// Tool names, principals and messages come from logged traffic: Markdown shows them as code spans
// so a crafted name cannot inject markup, links or table cells into the report.
import type { Flip, WhatIfReport } from './what-if.js';
import { formatDeterminer, type Determiner } from './what-if-explain.js';

export interface WhatIfMeta {
  /** The candidate config as the user named it. */
  candidate?: string;
  /** Where the decisions came from: a log file or a bundle. */
  source?: string;
}

const skippedOf = (r: WhatIfReport) => Object.entries(r.byReason).map(([k, n]) => `${n} ${k}`).join(', ');

export function whatIfSummary(r: WhatIfReport): string {
  const skipped = skippedOf(r);
  return (
    `what-if [${r.from}, ${r.to}) against chain ${r.candidate.chain.slice(0, 19)}…: ${r.evaluated} of ${r.decisions} decisions evaluated: ` +
    `${r.allowToDeny} allow->deny, ${r.denyToAllow} deny->allow, ${r.unchanged} unchanged${r.unevaluable ? `; ${r.unevaluable} not evaluated (${skipped})` : ''}` +
    (r.enrichersChanged ? `; ${r.enrichersChanged} with other enrichers` : '')
  );
}

const eventOf = (f: Flip) => `${f.event}${f.phase === 'response' ? ' (response)' : ''}`;
const targetOf = (f: Flip) => f.resource ?? f.target ?? '';

/** Terminal lines: each flip, what decided before and what decides now, then the summary. */
export function whatIfText(r: WhatIfReport): string[] {
  const out: string[] = [];
  const list = (label: string, ds: Determiner[]) => ds.forEach((d, i) => out.push(`    ${i === 0 ? label : ' '.repeat(label.length)} ${formatDeterminer(d)}`));
  for (const f of r.flips) {
    out.push(`seq ${String(f.seq).padStart(7)}  ${f.from} -> ${f.to}  ${eventOf(f)} ${targetOf(f)}${f.principal ? ` by ${f.principal}` : ''}`);
    list('before:', f.before);
    list('now:   ', f.after);
  }
  for (const c of r.enricherChanges ?? []) out.push(`seq ${String(c.seq).padStart(7)}  enrichers ${c.before.join(', ') || '(none)'} -> ${c.after.join(', ') || '(none)'}  ${c.event}`);
  if (r.truncated) out.push('... more flips not listed (use --format json)');
  out.push(whatIfSummary(r));
  return out;
}

/** The JSON report: the whole WhatIfReport, `changed` included. */
export function whatIfJson(r: WhatIfReport, meta: WhatIfMeta = {}, pretty = true): string {
  const doc = { ...(meta.candidate !== undefined && { candidateFile: meta.candidate }), ...(meta.source !== undefined && { source: meta.source }), ...r };
  return pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc);
}

/**
 * Text as a Markdown code span safe in a table cell: rendered literally (no HTML, emphasis,
 * links or autolinks), one line, pipes escaped (GFM splits cells before code spans).
 */
export function mdCode(s: string): string {
  const line = s.replace(/[\r\n\t]+/g, ' ').replace(/\|/g, '\\|');
  if (line === '') return '';
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

const mdDeterminers = (ds: Determiner[]) => ds.map((d) => mdCode(formatDeterminer(d))).join('<br>');

export function whatIfMarkdown(r: WhatIfReport, meta: WhatIfMeta = {}): string {
  const lines = [
    '# What-if report',
    '',
    `${r.changed ? '**Decisions would change.**' : 'No decision would change.'}`,
    '',
    '| | |',
    '|---|---|',
    ...(meta.candidate !== undefined ? [`| Candidate | ${mdCode(meta.candidate)} |`] : []),
    ...(meta.source !== undefined ? [`| Decisions from | ${mdCode(meta.source)} |`] : []),
    `| Candidate chain | ${mdCode(r.candidate.chain)} |`,
    `| Candidate policy set | ${mdCode(r.candidate.policySet)} |`,
    `| Range | \\[${r.from}, ${r.to}) |`,
    `| Decisions | ${r.decisions} |`,
    `| Evaluated | ${r.evaluated} |`,
    `| allow → deny | ${r.allowToDeny} |`,
    `| deny → allow | ${r.denyToAllow} |`,
    `| Unchanged | ${r.unchanged} |`,
    ...(r.enrichersChanged ? [`| Other enrichers | ${r.enrichersChanged} |`] : []),
    `| Not evaluated | ${r.unevaluable}${r.unevaluable ? ` (${mdCode(skippedOf(r))})` : ''} |`,
    '',
  ];
  if (r.flips.length > 0) {
    lines.push('## Flips', '', '| Seq | Change | Event | Target | Principal | Decided before | Decides now |', '|---:|---|---|---|---|---|---|');
    for (const f of r.flips) {
      lines.push(
        `| ${f.seq} | ${f.from} → ${f.to} | ${mdCode(eventOf(f))} | ${mdCode(targetOf(f))} | ${mdCode(f.principal ?? '')} | ${mdDeterminers(f.before)} | ${mdDeterminers(f.after)} |`,
      );
    }
    lines.push('');
    if (r.truncated) lines.push(`Only the first ${r.flips.length} flips are listed; the counts above cover all.`, '');
  }
  return lines.join('\n');
}
