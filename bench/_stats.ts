// Small statistics for benchmark modules: medians of repetitions and latency percentiles.

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1];
}

/** Round for display and reports: 3 significant digits below 100, whole numbers above. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Math.abs(x) >= 100 ? Math.round(x) : Number(x.toPrecision(3));
}
