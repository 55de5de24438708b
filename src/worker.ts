// The Cloudflare Workers entry (wrangler.toml `main`): the same app as Node, with each tenant's
// log in a Durable Object (VouchLog) and the resolved config embedded at build time. Nothing
// here imports node:*; test/workers/bundle.test.ts checks the built bundle for it.
import { codeOf, publicMessage } from './errors.js';
import { buildWorkerApp, type WorkerApp } from './worker/app.js';
import { WORKER_CONFIG_DOCUMENT } from './worker/config.js';
import type { WorkerEnv } from './worker/env.js';

export { VouchLog } from './worker/log-object.js';
export { VouchState } from './worker/state-object.js';

let built: { key: string; app: WorkerApp } | undefined;

/**
 * The app for these bindings, built on the first request of an isolate (Cedar and the key
 * derivation need no I/O, but workerd allows no randomness at global scope) and rebuilt only
 * when a binding it depends on changes. Only the finished app is kept, never a pending promise,
 * so nothing started by one request is awaited by another.
 */
async function appFor(env: WorkerEnv): Promise<WorkerApp> {
  const key = [env.VOUCH_SIGNING_KEY, env.VOUCH_ED25519_KEY, env.VOUCH_KEY_NAME, env.VOUCH_AUTH].join('\u0000');
  if (built?.key === key) return built.app;
  const app = await buildWorkerApp(env, WORKER_CONFIG_DOCUMENT);
  built = { key, app };
  return app;
}

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    let app: WorkerApp;
    try {
      app = await appFor(env);
    } catch (e) {
      // A deployment that cannot start (missing secret, config that cannot run here) says why on
      // every request, with its code; the message never holds a secret.
      console.error(JSON.stringify({ level: 'error', msg: 'worker cannot start', code: codeOf(e), error: publicMessage(e) }));
      return Response.json({ error: { code: codeOf(e), message: publicMessage(e) } }, { status: 500 });
    }
    return app.app.fetch(request);
  },
};
