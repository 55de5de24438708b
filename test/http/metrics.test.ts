// /metrics follows the Prometheus conventions scrapers and dashboards assume: durations are
// histograms in base units (`_seconds`, values in seconds), never milliseconds.
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/http/metrics.js';

const bucket = (text: string, name: string, le: string) => Number(new RegExp(`^${name}_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
const value = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

describe('Prometheus histograms', () => {
  it('decision latency and checkpoint coverage are _seconds histograms, in seconds', () => {
    const m = new Metrics();
    m.decision('default', 'allow', 250); // milliseconds, as the routes measure them
    m.decision('default', 'deny', 3);
    m.batch('default', 4, 10, 40); // four entries, each covered 40 ms after it was durable
    const text = m.render('all');
    expect(text).toContain('# TYPE vouch_decision_duration_seconds histogram');
    expect(text).toContain('# TYPE vouch_checkpoint_coverage_delay_seconds histogram');
    expect(bucket(text, 'vouch_decision_duration_seconds', '0.005')).toBe(1);
    expect(bucket(text, 'vouch_decision_duration_seconds', '0.2')).toBe(1);
    expect(bucket(text, 'vouch_decision_duration_seconds', '0.5')).toBe(2);
    expect(bucket(text, 'vouch_decision_duration_seconds', '+Inf')).toBe(2);
    expect(value(text, 'vouch_decision_duration_seconds_sum')).toBeCloseTo(0.253, 9);
    expect(value(text, 'vouch_decision_duration_seconds_count')).toBe(2);
    expect(bucket(text, 'vouch_checkpoint_coverage_delay_seconds', '0.025')).toBe(0);
    expect(bucket(text, 'vouch_checkpoint_coverage_delay_seconds', '0.05')).toBe(4);
    expect(value(text, 'vouch_checkpoint_coverage_delay_seconds_sum')).toBeCloseTo(0.16, 9);
    // No metric is named or measured in milliseconds.
    expect(text).not.toMatch(/^(# (HELP|TYPE) )?vouch_\w*_ms\b/m);
  });

  it('a bucket bound is inclusive exactly at its value', () => {
    const m = new Metrics();
    for (const ms of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000]) m.decision('t', 'allow', ms);
    const text = m.render({ tenant: 't' });
    expect(bucket(text, 'vouch_decision_duration_seconds', '0.001')).toBe(1);
    expect(bucket(text, 'vouch_decision_duration_seconds', '0.005')).toBe(3);
    expect(bucket(text, 'vouch_decision_duration_seconds', '5')).toBe(11);
  });
});

describe('archive passes (vouch serve on Node)', () => {
  const tenantsIn = (text: string) => new Set([...text.matchAll(/tenant="([^"]+)"/g)].map((x) => x[1]));

  it('count per tenant from the passes: the size after the last good one, mismatches and other failures apart', () => {
    const m = new Metrics();
    m.archivePass('a', { ok: true, size: 300 });
    m.archivePass('a', { ok: false, mismatch: false });
    m.archivePass('a', { ok: false, mismatch: true });
    m.archivePass('b', { ok: true, size: 7 });
    const text = m.render('all');
    expect(text).toMatch(/^vouch_archive_size\{tenant="a"\} 300$/m);
    expect(text).toMatch(/^vouch_archive_failures_total\{tenant="a"\} 1$/m);
    expect(text).toMatch(/^vouch_archive_mismatches_total\{tenant="a"\} 1$/m);
    expect(text).toMatch(/^vouch_archive_mismatches_total\{tenant="b"\} 0$/m);
    expect(text).toMatch(/^vouch_archive_mismatch_tenants 1$/m);
    // A tenant's own view shows its archive only (issue 35), and no service-wide totals.
    const own = m.render({ tenant: 'b' });
    expect(tenantsIn(own)).toEqual(new Set(['b']));
    expect(own).not.toContain('vouch_archive_mismatch_tenants');
  });

  it('stay bounded with many tenants, and a tenant whose archive raised the alarm is listed however small its log', () => {
    const m = new Metrics();
    for (let i = 0; i < 500; i++) {
      m.batch(`t${i}`, 1, 1000 + i);
      m.archivePass(`t${i}`, { ok: true, size: 1000 + i });
    }
    m.batch('small', 1, 1);
    m.archivePass('small', { ok: false, mismatch: true });
    const text = m.render('all');
    const listed = tenantsIn(text);
    expect(listed.size).toBe(20);
    expect(listed).toContain('small');
    expect(listed).toContain('t499'); // then the largest logs
    expect(listed).not.toContain('t0');
    expect(text).toMatch(/^vouch_archive_mismatch_tenants 1$/m);
    expect(text).toMatch(/^vouch_archive_mismatches_total\{tenant="small"\} 1$/m);
    expect(text.length).toBeLessThan(20_000);
  });
});
