// Bit arithmetic on tree sizes and indices. Sizes go up to 2^53 - 1, so this never uses the
// 32-bit operators (>>, |, &): halving is Math.floor(x / 2) and bit tests are x % 2.

/** A tree size or leaf index: a non-negative safe integer. */
export function isSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

export function isOdd(n: number): boolean {
  return n % 2 === 1;
}

/** n >> 1 for any safe integer. */
export function half(n: number): number {
  return Math.floor(n / 2);
}

/** The largest power of two strictly less than n (n >= 2): the split point k of RFC 9162 2.1.1. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** log2(n) if n is a power of two, else -1. */
export function exactLog2(n: number): number {
  if (n < 1) return -1;
  let level = 0;
  while (n > 1) {
    if (isOdd(n)) return -1;
    n /= 2;
    level++;
  }
  return level;
}

/**
 * The perfect subtrees that make up leaves [0, size), largest first: one per set bit of size.
 * Each is { level, index } with 2^level leaves starting at leaf index * 2^level.
 */
export function perfectSubtrees(size: number): { level: number; index: number }[] {
  const out: { level: number; index: number }[] = [];
  let width = 1;
  let level = 0;
  while (width * 2 <= size) {
    width *= 2;
    level++;
  }
  let start = 0;
  for (; level >= 0; level--, width /= 2) {
    if (size - start >= width) {
      out.push({ level, index: start / width });
      start += width;
    }
  }
  return out;
}

/** Number of set bits of size: the length of the compact range of [0, size). */
export function countSubtrees(size: number): number {
  let count = 0;
  for (let n = size; n > 0; n = half(n)) if (isOdd(n)) count++;
  return count;
}
