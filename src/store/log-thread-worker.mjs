// Entry of the log writer thread (NODE-ONLY, started by log-thread.ts). Plain JavaScript ESM:
// a worker thread starts without the TypeScript loader of its parent, so it registers tsx and
// then loads the host, which is TypeScript like the rest of the log.
import { register } from 'tsx/esm/api';

register();
await import('./log-thread-host.ts');
