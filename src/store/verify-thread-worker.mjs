// Entry of `vouch log verify`'s reading thread when run from the TypeScript sources (tests, tsx):
// a worker thread starts without its parent's TypeScript loader, so it registers tsx, then loads
// the host. Compiled, the host starts as is (verify-thread.ts hostUrl).
import { register } from 'tsx/esm/api';

register();
await import('./verify-thread-host.ts');
