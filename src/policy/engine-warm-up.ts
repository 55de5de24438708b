// Warm the Cedar engine from a thread that is idle at start-up (NODE-ONLY). V8 compiles the
// engine's WebAssembly function by function on first call and keeps the compiled code per
// process, shared by every thread that loads the same module: calls made here first make the main
// thread's first policy load and first decision use code already compiled (measured on Node 20:
// the first authorization 35-58 ms cold, about 1 ms after a warm-up elsewhere). The log thread runs
// it while it waits for its keys (store/log-thread-host.ts). The example policy exercises the
// parser, preparsing and the evaluator (not the validator: start-up skips validating a policy the
// log records as validated, policy-set.ts, and the warm-up must not delay the log thread's own
// start); nothing here reaches any decision.
import { readFileSync } from 'node:fs';
import { loadPolicySet } from './policy-set.js';

const EXAMPLE = new URL('../../fixtures/config/', import.meta.url);

/** Best effort: returns whether the engine ran (false when the example files are not installed). */
export function warmPolicyEngine(): boolean {
  try {
    const policies = readFileSync(new URL('policy.cedar', EXAMPLE), 'utf8');
    const set = loadPolicySet({ policies });
    set.authorize({
      principal: { type: 'User', id: 'warm-up' },
      action: { type: 'Action', id: 'tools/call' },
      resource: { type: 'Tool', id: 'echo' },
      context: { arguments: { text: 'warm-up' } },
      resourceAttrs: { name: 'echo' },
    });
    return true;
  } catch {
    return false;
  }
}
