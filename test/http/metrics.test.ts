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
