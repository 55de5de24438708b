// The part of `cloudflare:test` (@cloudflare/vitest-pool-workers) these specs use, typed without
// the Workers globals (the main tsconfig type-checks tests with Node types).
declare module 'cloudflare:test' {
  import type { DurableObjectState, R2Bucket } from '@cloudflare/workers-types/index.ts';
  import type { WorkerEnv } from '../../../src/worker/env.js';
  /** The Worker's bindings, and the specs' own: ARCHIVE_TEST, an R2 bucket (vitest.workers.config.ts). */
  export const env: WorkerEnv & { ARCHIVE_TEST: R2Bucket };
  /** The Worker (wrangler.toml `main`), in the same isolate as the tests. */
  export const SELF: { fetch(input: string | Request, init?: RequestInit): Promise<Response> };
  /** Restart every Durable Object instance; their storage persists (what an eviction does). */
  export function abortAllDurableObjects(): Promise<void>;
  export function runInDurableObject<O, R>(stub: unknown, callback: (instance: O, state: DurableObjectState) => R | Promise<R>): Promise<R>;
}
