// Prometheus text exposition: decisions by effect, decision latency, batch sizes, log sizes.
// Counters only; no labels carry payloads, principals or tokens. Kept per tenant (DESIGN 11).
// Durations are in seconds (`_seconds`, Prometheus base units); callers measure in milliseconds.

const LATENCY_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];
/** Coverage delay: entry durable -> covered by a signed checkpoint (log/pacing.ts bounds it). */
const COVERAGE_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Milliseconds to seconds: IEEE division is correctly rounded, so 250 ms lands exactly on the 0.25 bound. */
const seconds = (ms: number) => ms / 1000;

class Histogram {
  readonly counts: number[];
  sum = 0;
  n = 0;
  constructor(readonly buckets: number[]) {
    this.counts = buckets.map(() => 0);
  }
  observe(v: number, times = 1): void {
    this.sum += v * times;
    this.n += times;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]) this.counts[i] += times;
  }
  lines(name: string): string[] {
    const out = this.buckets.map((b, i) => `${name}_bucket{le="${b}"} ${this.counts[i]}`);
    out.push(`${name}_bucket{le="+Inf"} ${this.n}`, `${name}_sum ${this.sum}`, `${name}_count ${this.n}`);
    return out;
  }
}

/** The counters one scope has: one tenant's, or the whole service's (the operator's view). */
class Counters {
  readonly decisions = new Map<string, number>();
  readonly latency = new Histogram(LATENCY_BUCKETS_S);
  readonly batches = new Histogram(BATCH_BUCKETS);
  readonly coverage = new Histogram(COVERAGE_BUCKETS_S);
  readonly errors = new Map<string, number>();
}

/**
 * Per-tenant lines the operator's view lists at most (issue 40: 1,000 tenants must not make
 * /metrics 1,000 times longer): tenants with an integrity alarm (a failed audit, a refused archive
 * pass) first, then the largest logs; the totals over every tenant follow as lines without a
 * tenant label.
 */
export const TOP_TENANTS = 20;

/** Whose counters a render shows: one tenant's (a tenant token), or every tenant's (the operator). */
export type MetricsView = { tenant: string } | 'all';

/**
 * Every counter is kept per tenant and for the whole service: a tenant token reads its own
 * tenant's (issue 35: no tenant learns another's traffic, sizes or errors), the operator all.
 * Errors before the caller is known (no token, a bad token) count for the service only.
 */
export class Metrics {
  private all = new Counters();
  private tenants = new Map<string, Counters>();
  private logSize = new Map<string, number>();
  private audits = new Map<string, { checked: number; total: number; complete: boolean; failed: boolean }>();
  private published = new Map<string, number>();
  private otlpFailures = new Map<string, number>();
  private retention?: { runs: number; erased: number; failures: number };
  private witnesses = new Map<string, { tenant: string; name: string; logSize: number; cosignedSize: number; failures: number }>();
  private tsa = new Map<string, { failures: number; stampedSize: number; lastSuccessMs?: number; logSize: number }>();
  private archives = new Map<string, { size: number; mismatches: number; failures: number }>();
  private tenantLogs?: () => { open: number; opens: number; closes: number };

  /** Open tenant logs and their opens and closes (tenant-logs.ts's tenant pool), read at each render. */
  tenantLogsFrom(stats: () => { open: number; opens: number; closes: number }): void {
    this.tenantLogs = stats;
  }

  /** The tenants the operator's view lists by name: every one when few; else integrity alarms first, then the largest logs. */
  private listed(): Set<string> {
    const all = new Set([...this.logSize.keys(), ...this.audits.keys(), ...this.published.keys(), ...[...this.witnesses.values()].map((w) => w.tenant), ...this.tsa.keys(), ...this.archives.keys()]);
    if (all.size <= TOP_TENANTS) return all;
    // An integrity alarm (a failed audit, a refused archive pass) is listed whatever its log's size.
    const alarmed = (t: string) => Number(!!this.audits.get(t)?.failed || (this.archives.get(t)?.mismatches ?? 0) > 0);
    const rank = [...all].sort((a, b) => alarmed(b) - alarmed(a) || (this.logSize.get(b) ?? 0) - (this.logSize.get(a) ?? 0) || (a < b ? -1 : 1));
    return new Set(rank.slice(0, TOP_TENANTS));
  }

  /** The service's counters and, when the tenant is known, that tenant's. */
  private scopes(tenant: string | undefined): Counters[] {
    if (tenant === undefined) return [this.all];
    let t = this.tenants.get(tenant);
    if (!t) this.tenants.set(tenant, (t = new Counters()));
    return [this.all, t];
  }

  decision(tenant: string, effect: 'allow' | 'deny', ms: number): void {
    for (const c of this.scopes(tenant)) {
      c.decisions.set(effect, (c.decisions.get(effect) ?? 0) + 1);
      c.latency.observe(seconds(ms));
    }
  }

  /** A committed batch, reported once a signed checkpoint covers it (`coverMs`: its entries' coverage delay). */
  batch(tenant: string, entries: number, size: number, coverMs?: number): void {
    for (const c of this.scopes(tenant)) {
      c.batches.observe(entries);
      if (coverMs !== undefined) c.coverage.observe(seconds(coverMs), entries);
    }
    this.logSize.set(tenant, Math.max(size, this.logSize.get(tenant) ?? 0));
  }

  /** Progress of a tenant log's background leaf audit (log/leaf-audit.ts). */
  audit(tenant: string, p: { checked: number; total: number; complete: boolean; failed: boolean }): void {
    this.audits.set(tenant, { ...p });
  }

  /** Size of the newest shutdown/idle checkpoint published for a tenant. */
  checkpointPublished(tenant: string, size: number): void {
    this.published.set(tenant, size);
  }

  /** Telemetry (OTLP) items whose export failed, by signal: never a decision's failure. Service-wide: the operator's. */
  /** A retention policy is in force: its counters are served from start, at 0 (an alert needs the series before the first pass). */
  retentionOn(): void {
    this.retention ??= { runs: 0, erased: 0, failures: 0 };
  }

  /** One tenant's retention pass (audit/retention.ts): payloads erased, or a failure. Totals only: bounded with many tenants. */
  retentionRun(erased: number, failed: boolean): void {
    const r = (this.retention ??= { runs: 0, erased: 0, failures: 0 });
    r.runs++;
    r.erased += erased;
    if (failed) r.failures++;
  }

  otlpFailed(signal: string, items: number): void {
    this.otlpFailures.set(signal, (this.otlpFailures.get(signal) ?? 0) + items);
  }

  /** A witness's progress and failure count as a log keeps them (the Worker's log objects): replaces what was set. */
  witnessProgress(tenant: string, name: string, logSize: number, cosignedSize: number, failures: number): void {
    this.witnesses.set(`${tenant}\u0000${name}`, { tenant, name, logSize, cosignedSize, failures });
  }

  /** A witness's progress on a tenant log (witness/submitter.ts): behind = log size - size it cosigned. */
  witness(tenant: string, name: string, logSize: number, cosignedSize: number, ok: boolean): void {
    this.witnesses.set(`${tenant}\u0000${name}`, { tenant, name, logSize, cosignedSize, failures: (this.witnesses.get(`${tenant}\u0000${name}`)?.failures ?? 0) + (ok ? 0 : 1) });
  }

  /** An RFC 3161 stamp attempt on a tenant log (timestamp/stamper.ts): a failure delays only the stamp. */
  timestamp(tenant: string, st: { ok: boolean; size: number; stamped?: { size: number; received: number } }): void {
    const was = this.tsa.get(tenant);
    this.tsa.set(tenant, { failures: (was?.failures ?? 0) + (st.ok ? 0 : 1), stampedSize: st.stamped?.size ?? was?.stampedSize ?? 0, lastSuccessMs: st.stamped?.received ?? was?.lastSuccessMs, logSize: Math.max(st.size, was?.logSize ?? 0) });
  }

  /**
   * One pass of `vouch serve`'s archiver (http/log-archiver.ts): the size its checkpoint holds
   * after it, or a failure counted (a mismatch is the integrity alarm). Kept here from the passes:
   * a scrape reads no archive file. A failed pass keeps the last size known.
   */
  archivePass(tenant: string, p: { ok: true; size: number } | { ok: false; mismatch: boolean }): void {
    const a = this.archives.get(tenant) ?? { size: 0, mismatches: 0, failures: 0 };
    if (p.ok) a.size = p.size;
    else if (p.mismatch) a.mismatches++;
    else a.failures++;
    this.archives.set(tenant, a);
  }

  /** A tenant log's tile archive as its writer keeps it (the Worker's log objects, R2): replaces what was set. */
  archiveProgress(tenant: string, p: { size: number; mismatches: number; failures: number }): void {
    this.archives.set(tenant, { ...p });
  }

  /** An error answered; `tenant` when the caller was known. */
  error(code: string, tenant?: string): void {
    for (const c of this.scopes(tenant)) c.errors.set(code, (c.errors.get(code) ?? 0) + 1);
  }

  render(view: MetricsView): string {
    const listed = view === 'all' ? this.listed() : undefined;
    const mine = (t: string) => (view === 'all' ? listed!.has(t) : t === view.tenant);
    const c = view === 'all' ? this.all : (this.tenants.get(view.tenant) ?? new Counters());
    const l: string[] = [];
    l.push('# HELP vouch_decisions_total Decisions made, by effect.', '# TYPE vouch_decisions_total counter');
    for (const e of ['allow', 'deny']) l.push(`vouch_decisions_total{effect="${e}"} ${c.decisions.get(e) ?? 0}`);
    l.push('# HELP vouch_decision_duration_seconds Seconds from request to answer (signed receipt, or durable entry with wait "durable").', '# TYPE vouch_decision_duration_seconds histogram', ...c.latency.lines('vouch_decision_duration_seconds'));
    l.push('# HELP vouch_batch_entries Entries per group-commit batch (one transaction; a signed checkpoint covers one or more).', '# TYPE vouch_batch_entries histogram', ...c.batches.lines('vouch_batch_entries'));
    l.push('# HELP vouch_checkpoint_coverage_delay_seconds Per entry, seconds: from durable (committed) to covered by a signed checkpoint.', '# TYPE vouch_checkpoint_coverage_delay_seconds histogram', ...c.coverage.lines('vouch_checkpoint_coverage_delay_seconds'));
    l.push('# HELP vouch_log_entries Entries in each tenant log.', '# TYPE vouch_log_entries gauge');
    for (const [t, n] of this.logSize) if (mine(t)) l.push(`vouch_log_entries{tenant="${t}"} ${n}`);
    const audits = [...this.audits].filter(([t]) => mine(t));
    l.push('# HELP vouch_audit_entries_checked Entries whose bytes, leaf hash and tree nodes the background audit has checked.', '# TYPE vouch_audit_entries_checked gauge');
    for (const [t, a] of audits) l.push(`vouch_audit_entries_checked{tenant="${t}"} ${a.checked}`);
    l.push('# HELP vouch_audit_entries_total Entries the background audit checks (the signed tree size at start).', '# TYPE vouch_audit_entries_total gauge');
    for (const [t, a] of audits) l.push(`vouch_audit_entries_total{tenant="${t}"} ${a.total}`);
    l.push('# HELP vouch_audit_complete 1 once the background audit has checked every entry and found them consistent.', '# TYPE vouch_audit_complete gauge');
    for (const [t, a] of audits) l.push(`vouch_audit_complete{tenant="${t}"} ${a.complete ? 1 : 0}`);
    l.push('# HELP vouch_audit_failed 1 if the background audit found a mismatch (signing stopped).', '# TYPE vouch_audit_failed gauge');
    for (const [t, a] of audits) l.push(`vouch_audit_failed{tenant="${t}"} ${a.failed ? 1 : 0}`);
    l.push('# HELP vouch_checkpoint_published_size Tree size of the newest shutdown or idle checkpoint published.', '# TYPE vouch_checkpoint_published_size gauge');
    for (const [t, n] of this.published) if (mine(t)) l.push(`vouch_checkpoint_published_size{tenant="${t}"} ${n}`);
    if (view === 'all') {
      // Totals over every tenant, however many: the per-tenant lines above list TOP_TENANTS at most.
      const audits = [...this.audits.values()];
      l.push('# HELP vouch_tenants Tenants with a log this process has seen.', '# TYPE vouch_tenants gauge', `vouch_tenants ${new Set([...this.logSize.keys(), ...this.audits.keys()]).size}`);
      l.push('# HELP vouch_tenants_listed Tenants listed by name in the per-tenant lines (integrity alarms first, then the largest logs).', '# TYPE vouch_tenants_listed gauge', `vouch_tenants_listed ${listed!.size}`);
      l.push('# HELP vouch_log_entries_all Entries in every tenant log together.', '# TYPE vouch_log_entries_all gauge', `vouch_log_entries_all ${[...this.logSize.values()].reduce((a, b) => a + b, 0)}`);
      l.push('# HELP vouch_audit_failed_tenants Tenant logs whose background audit found a mismatch.', '# TYPE vouch_audit_failed_tenants gauge', `vouch_audit_failed_tenants ${audits.filter((a) => a.failed).length}`);
      l.push('# HELP vouch_audit_incomplete_tenants Tenant logs whose background audit has not finished.', '# TYPE vouch_audit_incomplete_tenants gauge', `vouch_audit_incomplete_tenants ${audits.filter((a) => !a.complete && !a.failed).length}`);
      if (this.archives.size) l.push('# HELP vouch_archive_mismatch_tenants Tenants whose tile archive raised the integrity alarm (ERR_ARCHIVE_MISMATCH).', '# TYPE vouch_archive_mismatch_tenants gauge', `vouch_archive_mismatch_tenants ${[...this.archives.values()].filter((a) => a.mismatches > 0).length}`);
      const pool = this.tenantLogs?.();
      if (pool) {
        l.push('# HELP vouch_tenant_logs_open Tenant logs open now (idle ones close; --max-open-tenants caps them).', '# TYPE vouch_tenant_logs_open gauge', `vouch_tenant_logs_open ${pool.open}`);
        l.push('# HELP vouch_tenant_log_opens_total Tenant log opens (reopens after an idle close included).', '# TYPE vouch_tenant_log_opens_total counter', `vouch_tenant_log_opens_total ${pool.opens}`);
        l.push('# HELP vouch_tenant_log_closes_total Tenant log closes (idle, or over the cap).', '# TYPE vouch_tenant_log_closes_total counter', `vouch_tenant_log_closes_total ${pool.closes}`);
      }
    }
    l.push('# HELP vouch_errors_total Errors answered, by code.', '# TYPE vouch_errors_total counter');
    for (const [code, n] of c.errors) l.push(`vouch_errors_total{code="${code}"} ${n}`);
    if (view === 'all' && this.retention) {
      const r = this.retention;
      l.push('# HELP vouch_retention_runs_total Payload retention passes over a tenant log.', '# TYPE vouch_retention_runs_total counter', `vouch_retention_runs_total ${r.runs}`);
      l.push('# HELP vouch_retention_payloads_erased_total Payloads erased by retention (each listed in a signed erasure entry first).', '# TYPE vouch_retention_payloads_erased_total counter', `vouch_retention_payloads_erased_total ${r.erased}`);
      l.push('# HELP vouch_retention_failures_total Retention passes that failed (retried at the next pass).', '# TYPE vouch_retention_failures_total counter', `vouch_retention_failures_total ${r.failures}`);
    }
    if (view === 'all' && this.otlpFailures.size) {
      l.push('# HELP vouch_otlp_export_failures_total Spans and log records whose OTLP export failed, by signal.', '# TYPE vouch_otlp_export_failures_total counter');
      for (const [sig, n] of this.otlpFailures) l.push(`vouch_otlp_export_failures_total{signal="${sig}"} ${n}`);
    }
    const w = [...this.witnesses.values()].filter((x) => mine(x.tenant));
    if (w.length) {
      const lbl = (x: { tenant: string; name: string }) => `tenant="${x.tenant}",witness="${x.name.replace(/["\\\n]/g, '_')}"`;
      l.push('# HELP vouch_witness_cosigned_size Tree size of the newest checkpoint each witness cosigned.', '# TYPE vouch_witness_cosigned_size gauge');
      for (const x of w) l.push(`vouch_witness_cosigned_size{${lbl(x)}} ${x.cosignedSize}`);
      l.push('# HELP vouch_witness_behind_entries Entries the log holds beyond what each witness cosigned.', '# TYPE vouch_witness_behind_entries gauge');
      for (const x of w) l.push(`vouch_witness_behind_entries{${lbl(x)}} ${Math.max(0, x.logSize - x.cosignedSize)}`);
      l.push('# HELP vouch_witness_failures_total Submissions a witness did not cosign (down, timed out or refused).', '# TYPE vouch_witness_failures_total counter');
      for (const x of w) l.push(`vouch_witness_failures_total{${lbl(x)}} ${x.failures}`);
    }
    const a = [...this.archives.entries()].filter(([tenant]) => mine(tenant));
    if (a.length) {
      l.push('# HELP vouch_archive_size Tree size of the checkpoint the tile archive holds.', '# TYPE vouch_archive_size gauge');
      for (const [tenant, x] of a) l.push(`vouch_archive_size{tenant="${tenant}"} ${x.size}`);
      l.push('# HELP vouch_archive_mismatches_total Archive passes refused because an archived file held other bytes than the log\'s (ERR_ARCHIVE_MISMATCH; never overwritten).', '# TYPE vouch_archive_mismatches_total counter');
      for (const [tenant, x] of a) l.push(`vouch_archive_mismatches_total{tenant="${tenant}"} ${x.mismatches}`);
      l.push('# HELP vouch_archive_failures_total Archive passes that failed otherwise (storage errors; retried).', '# TYPE vouch_archive_failures_total counter');
      for (const [tenant, x] of a) l.push(`vouch_archive_failures_total{tenant="${tenant}"} ${x.failures}`);
    }
    const t = [...this.tsa.entries()].filter(([tenant]) => mine(tenant));
    if (t.length) {
      l.push('# HELP vouch_tsa_failures_total RFC 3161 time-stamp requests that brought no valid token (TSA down, timed out, refused, garbage).', '# TYPE vouch_tsa_failures_total counter');
      for (const [tenant, x] of t) l.push(`vouch_tsa_failures_total{tenant="${tenant}"} ${x.failures}`);
      l.push('# HELP vouch_tsa_stamped_size Tree size of the newest checkpoint with a valid TSA token.', '# TYPE vouch_tsa_stamped_size gauge');
      for (const [tenant, x] of t) l.push(`vouch_tsa_stamped_size{tenant="${tenant}"} ${x.stampedSize}`);
      l.push('# HELP vouch_tsa_last_success_age_seconds Seconds since the newest valid TSA token was received (absent before the first).', '# TYPE vouch_tsa_last_success_age_seconds gauge');
      for (const [tenant, x] of t) if (x.lastSuccessMs !== undefined) l.push(`vouch_tsa_last_success_age_seconds{tenant="${tenant}"} ${Math.max(0, (Date.now() - x.lastSuccessMs) / 1000).toFixed(1)}`);
    }
    return l.join('\n') + '\n';
  }
}
