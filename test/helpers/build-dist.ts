// vitest globalSetup: compile src/ to dist/ once before the tests, when a source is newer, because
// the tests that spawn `bin/vouch.js` run the compiled CLI (scripts/build-dist.mjs; type errors
// are `npm run typecheck`'s to report, so they do not stop the run here).
import { buildDist } from '../../scripts/build-dist.mjs';

export default function setup(): void {
  buildDist({ ifStale: true, quiet: true });
}
