// The console's timeline and breakdowns (src/http/_console-chart.ts) over synthetic rows: the
// bucket width chosen for the span, each split counting every decision once (the top five and the
// rest summed), ties ordered by name, and a large log (300,000 decisions) charted without
// exhausting the stack, as spreading every time into Math.min did.
import { describe, expect, it } from 'vitest';
import { breakdownOf, chartOf } from '../../src/http/_console-chart.js';
import type { ConsoleRow } from '../../src/http/_console-rows.js';

const T0 = Date.parse('2026-12-01T10:00:00Z');

function row(seq: number, ms: number, target: string | null, principal: string | null, effect: 'allow' | 'deny' | null = seq % 3 ? 'allow' : 'deny'): ConsoleRow {
  return { seq, type: effect ? 'decision' : 'execution', time: new Date(T0 + ms).toISOString(), principal, event: 'tools/call', phase: 'request', target, effect, decidedBy: null, drift: null, link: null, flags: [] };
}

describe('chartOf', () => {
  it('picks the smallest bucket giving at most 48 bars, and counts every decision once in each split', () => {
    const tools = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const rows = Array.from({ length: 70 }, (_, i) => row(i, i * 60_000, tools[i % 7], `p${i % 2}`));
    rows.push(row(70, 5_000, 'x', null, null)); // an execution: no effect, not charted
    const c = chartOf(rows);
    expect(c.bucketMs).toBe(3e5); // 69 minutes: 5-minute bars
    expect(c.start).toBe('2026-12-01T10:00:00.000Z');
    expect(c.buckets.length).toBe(14);
    expect(c.buckets.reduce((n, b) => n + b.allow + b.deny, 0)).toBe(70);
    expect(c.by.tool.keys).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(c.by.tool.other).toBe(true);
    expect(c.by.tool.counts.every((b) => b.length === 6)).toBe(true);
    expect(c.by.tool.counts.flat().reduce((a, b) => a + b, 0)).toBe(70);
    expect(c.by.tool.counts.reduce((n, b) => n + b[5], 0)).toBe(20); // f and g
    expect(c.by.principal).toMatchObject({ keys: ['p0', 'p1'], other: false });
    expect(chartOf([])).toMatchObject({ start: null, buckets: [], by: { tool: { keys: [] } } });
  });

  it('charts 300,000 decisions', () => {
    const rows = Array.from({ length: 300_000 }, (_, i) => row(i, i * 10, `t${i % 9}`, `p${i % 13}`));
    const c = chartOf(rows);
    expect(c.buckets.reduce((n, b) => n + b.allow + b.deny, 0)).toBe(300_000);
    expect(c.buckets.length).toBeLessThanOrEqual(48);
  });
});

describe('breakdownOf', () => {
  it('lists the top ten by decisions (ties by name), sums the rest, and keeps rows naming none apart', () => {
    const rows = Array.from({ length: 24 }, (_, i) => row(i, i, i < 2 ? null : `tool-${String.fromCharCode(97 + (i % 12))}`, 'p'));
    const b = breakdownOf(rows, 'target');
    expect(b.top.length).toBe(10);
    expect(b.top.reduce((n, t) => n + t.allow + t.deny, 0) + b.rest!.allow + b.rest!.deny).toBe(24);
    expect(b.rest!.keys).toBe(3);
    const counts = b.top.map((t) => t.allow + t.deny);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    expect(b.top.find((t) => t.key === null)).toMatchObject({ key: null });
  });
});
