// Exact decimal numbers for the numeric-tolerance match: "4.2 billion" against 4.1e9 within 2.5%
// must not turn on binary floating point (4.2 * 1e9 is not 4200000000 in doubles), so values are
// compared as BigInt coefficients times powers of ten.

/** coefficient * 10^exponent, exactly. */
export interface Decimal {
  coef: bigint;
  exp: number;
}

/** Digits of a number's decimal text (`-12.5`, `4100000000`, `1e+21`, `1.5e-7`); undefined if not one. */
export function parseDecimal(text: string): Decimal | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,4}))?$/.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  const coef = BigInt(m[2] + frac) * (m[1] === '-' ? -1n : 1n);
  return { coef, exp: Number(m[4] ?? 0) - frac.length };
}

/** A JSON number as the decimal its shortest text spells (0.05 is 5e-2, not the nearest double). */
export function decimalOfNumber(n: number): Decimal {
  return parseDecimal(String(n))!;
}

export function scale(d: Decimal, powerOfTen: number): Decimal {
  return { coef: d.coef, exp: d.exp + powerOfTen };
}

const abs = (b: bigint) => (b < 0n ? -b : b);

/** Both coefficients at the smaller exponent. */
function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const e = Math.min(a.exp, b.exp);
  return [a.coef * 10n ** BigInt(a.exp - e), b.coef * 10n ** BigInt(b.exp - e), e];
}

/**
 * |claimed - fact| <= max(absolute, relative * |fact|), exactly; the boundary counts as within.
 * Exponents are bounded by the callers (evidence numbers are JSON doubles, text numbers have at
 * most 40 digits and a scale of at most 10^12), so the powers of ten stay small.
 */
export function withinTolerance(claimed: Decimal, fact: Decimal, relative: Decimal, absolute: Decimal): boolean {
  const [c, f, e] = align(claimed, fact);
  const diff: Decimal = { coef: abs(c - f), exp: e };
  const rel: Decimal = { coef: abs(relative.coef * fact.coef), exp: relative.exp + fact.exp };
  const [d1, r] = align(diff, rel);
  if (d1 <= r) return true;
  const [d2, a] = align(diff, absolute);
  return d2 <= a;
}
