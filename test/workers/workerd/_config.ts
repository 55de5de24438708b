// The example config as the specs' Worker runs it: the embedded config (vitest.workers.config.ts
// stands the example in for the generated file) resolved with no vars, so every setting takes its default.
import type { Json } from '../../../src/interceptors/types.js';
import { resolveEmbeddedConfig } from '../../../src/policy/config-embedded.js';
import { WORKER_CONFIG } from '../../../src/worker/config.js';

export const WORKER_CONFIG_DOCUMENT: Json = resolveEmbeddedConfig(WORKER_CONFIG, {});
