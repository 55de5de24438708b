// A promise raced against a request's abort signal: an upstream request that waits on the
// client's era or initialize ends when it is cancelled, or when that wait fails.

export function waitFor<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    // Rejected too: a client that hangs up before its first message rejects the era (gateway-era.ts),
    // and an upstream request waiting on it must end with it, not leave an unhandled rejection.
    p.then(resolve, reject);
  });
}
