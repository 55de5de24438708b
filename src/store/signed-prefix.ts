// A log store seen only up to a size (the size a verified checkpoint signs): what readers of
// committed state use when entries after it, which nobody signed yet, must not count (issue 35).
import type { LogStore } from './port.js';

export function signedPrefix(store: LogStore, size: number): LogStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'size') return () => Math.min(size, target.size());
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
