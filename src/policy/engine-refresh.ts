// A fresh instance of the Cedar engine once start-up is over (NODE-ONLY). `vouch serve` and
// `vouch gateway` start with a very large WebAssembly tiering budget (bin/vouch.js): at V8's
// budget, parsing the policy set at start-up made V8 recompile much of the engine with its
// optimizing compiler, about half a second of CPU on two cores while start-up waited for them
// (measured with perf: 520 ms). A budget is fixed per instance when it is created, though, and
// under the large one decisions ran 20-30% slower for the life of the process (0.37 against
// 0.30 ms a call). So, a few seconds after start, this loads the engine's module again under V8's
// own budget; cedar-engine.ts hands it every preparsed policy set and sends later calls to it.
// The compiled code is V8's per module and shared, so nothing is compiled twice.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { replaceEngine, type CedarEngine } from './cedar-engine.js';
import { runDeferredContextAnalysis, START_UP_BUDGET_KEY } from './policy-set.js';

/** V8's default in Node 20 (`node --v8-options`). */
export const DEFAULT_WASM_TIERING_BUDGET = 1_800_000;
/** What bin/vouch.js sets for serve and gateway is recorded under this key of globalThis. */
export { START_UP_BUDGET_KEY };

/** Load a new instance under `budget` and switch to it; false (nothing changed) when that cannot be done. */
export function refreshPolicyEngine(budget = DEFAULT_WASM_TIERING_BUDGET): boolean {
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = require.resolve('@cedar-policy/cedar-wasm/nodejs');
  } catch {
    return false;
  }
  setFlagsFromString(`--wasm-tiering-budget=${budget}`);
  const loaded = require.cache[path];
  delete require.cache[path];
  try {
    return replaceEngine(require(path) as CedarEngine);
  } catch {
    return false;
  } finally {
    if (loaded) require.cache[path] = loaded;
  }
}

/**
 * In a process that raised the budget for its start-up: refresh `delayMs` from now, and run the
 * policy sets' context analyses left for then (policy-set.ts), without
 * holding the process open. Returns how to cancel it, or undefined when nothing is scheduled.
 */
export function scheduleEngineRefresh(delayMs = 3000): (() => void) | undefined {
  const g = globalThis as Record<symbol, unknown>;
  if (g[START_UP_BUDGET_KEY] === undefined) return undefined;
  const t = setTimeout(() => {
    g[START_UP_BUDGET_KEY] = undefined;
    refreshPolicyEngine();
    runDeferredContextAnalysis();
  }, delayMs);
  t.unref();
  return () => clearTimeout(t);
}
