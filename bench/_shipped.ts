// The benches measure the code that ships: `vouch serve` and `vouch gateway` run the compiled
// JavaScript in dist/ (bin/vouch.js), not src/ under the bench's TypeScript loader. tsx compiles
// with esbuild's keepNames, which wraps every named closure in a `__name` call that sets its
// `name` property each time the closure is made: measured at 64 callers, that was about a tenth
// of the event loop's time per decision, a cost `vouch` never pays. dist/ is rebuilt first when a
// source is newer (the same check `vouch` makes). Every module of one bench must come from here,
// so that the core's installed hooks (SHA-256, base64) and module state are one set.
import { buildDist } from '../scripts/build-dist.mjs';

let built = false;

/** `rel` is a path under src/ ending in .js, e.g. 'http/node-server.js'. */
export async function shipped<T>(rel: string): Promise<T> {
  if (!built) {
    buildDist({ ifStale: true, quiet: true });
    built = true;
  }
  return (await import(new URL(`../dist/${rel}`, import.meta.url).href)) as T;
}
