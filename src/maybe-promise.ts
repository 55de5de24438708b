// A value or a promise of it, for code that stays synchronous when what it calls answers at once
// (a memory store, a synchronous interceptor) and waits only when it answers with a promise.

export type MaybePromise<T> = T | Promise<T>;

/** A promise, or any object with a callable `then`; a non-function `then` (a JSON Schema keyword) is data. */
export function isThenable<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/**
 * `f` of what was answered: at once when it answered synchronously, after it when it answered
 * with a promise. A built-in's prepare() stays synchronous on a synchronous store (memory, one
 * process), and a synchronous attempt arms no deadline timer, races nothing and makes no
 * AbortController (interceptors/_attempt.ts): measured, that machinery cost a decision more than
 * the stores.
 */
export function whenAnswered<T, U>(v: MaybePromise<T>, f: (t: T) => U): MaybePromise<U> {
  return isThenable(v) ? v.then(f) : f(v);
}
