// Every store call either works or throws a StoreError: closed stores refuse, and whatever the
// database throws is wrapped with what was being done (ERR_STORE). Shared by both LogStores.
import { StoreError } from '../errors.js';

export function guarded<T>(closed: boolean, what: string, fn: () => T): T {
  if (closed) throw new StoreError('ERR_STORE_CLOSED', 'store is closed');
  try {
    return fn();
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError('ERR_STORE', `${what} failed: ${(cause as Error).message}`, { cause });
  }
}
