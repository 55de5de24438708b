// The Worker's fetch handler for one embedded config: its settings resolved from the bindings and
// the app built on the first request of an isolate and kept, /metrics marked as per isolate, /audit
// answered with where the console is. src/worker.ts is this handler over the config `npm run
// build:config` embedded; the bench and the Node-side tests run `wrangler dev` with an entry of the
// same handler over another one.
import { codeOf, publicMessage } from '../errors.js';
import { embeddedSettingNames, resolveEmbeddedConfig, settingsOf, type EmbeddedConfig } from '../policy/config-embedded.js';
import { buildWorkerApp, type WorkerApp } from './app.js';
import type { WorkerEnv } from './env.js';

/** The part of the Workers ExecutionContext the handler uses. */
export interface WorkerContext {
  waitUntil(p: Promise<unknown>): void;
}

export interface WorkerHandler {
  fetch(request: Request, env: WorkerEnv, ctx?: WorkerContext): Promise<Response>;
}

export function workerHandler(config: EmbeddedConfig): WorkerHandler {
  const names = embeddedSettingNames(config);
  let built: { key: string; settingsKey: string; app: WorkerApp } | undefined;

  /**
   * The app for these bindings, built on the first request of an isolate (Cedar and the key
   * derivation need no I/O, but workerd allows no randomness at global scope) and rebuilt only
   * when a binding it depends on changes. Only the finished app is kept, never a pending promise,
   * so nothing started by one request is awaited by another.
   */
  async function appFor(env: WorkerEnv): Promise<WorkerApp> {
    const key = [env.VOUCH_SIGNING_KEY, env.VOUCH_ED25519_KEY, env.VOUCH_SIGNING_KEY_PREVIOUS, env.VOUCH_ED25519_KEY_PREVIOUS, env.VOUCH_KEY_NAME, env.VOUCH_AUTH, env.VOUCH_WITNESSES, env.VOUCH_OTLP, env.VOUCH_CALLERS, env.VOUCH_REQUIRE_CALLER_SIGNATURE].join('\u0000');
    const settings = settingsOf(env);
    const settingsKey = JSON.stringify(names.map((n) => settings[n] ?? null));
    if (built?.key === key && built.settingsKey === settingsKey) return built.app;
    // Settings are resolved here, from this Worker's vars, as Node resolves them from its
    // environment: an unset one without a default stops the Worker with ERR_CONFIG naming it.
    const document = resolveEmbeddedConfig(config, settings, 'wrangler.toml [vars] (or `wrangler secret put`), or give it a default ${NAME:-VALUE}');
    const app = await buildWorkerApp(env, document);
    built = { key, settingsKey, app };
    return app;
  }

  return {
    async fetch(request, env, ctx) {
      let app: WorkerApp;
      try {
        app = await appFor(env);
        // While an interceptor server has not answered, this is where it is tried again (policy.ts).
        await app.policy.current();
      } catch (e) {
        // A deployment that cannot start (missing secret, config that cannot run here) says why on
        // every request, with its code; the message never holds a secret.
        console.error(JSON.stringify({ level: 'error', msg: 'worker cannot start', code: codeOf(e), error: publicMessage(e) }));
        return Response.json({ error: { code: codeOf(e), message: publicMessage(e) } }, { status: 500 });
      }
      const path = new URL(request.url).pathname;
      if (path === '/audit' || path.startsWith('/audit/')) return noConsole();
      const res = await app.app.fetch(request);
      // OTLP export of the entries this request appended: after the answer, within this request's lifetime.
      if (app.telemetry) ctx ? ctx.waitUntil(app.telemetry.flush()) : await app.telemetry.flush();
      return path === '/metrics' && res.ok ? perIsolate(res) : res;
    },
  };
}

/**
 * /metrics on Workers counts what this isolate answered since it started: each isolate has its
 * own counters and a request may reach any of them. Said in the body (a comment line Prometheus
 * ignores) and a header, so no one reads one isolate's numbers as the deployment's.
 */
async function perIsolate(res: Response): Promise<Response> {
  const body = `# vouch on Cloudflare Workers: these counters are of one isolate (since it started), not of the deployment\n${await res.text()}`;
  const headers = new Headers(res.headers);
  headers.set('x-vouch-metrics-scope', 'isolate');
  return new Response(body, { status: res.status, headers });
}

/** The audit console page is not served at the edge (it is a Node-built bundle); the API it reads is. */
function noConsole(): Response {
  const message =
    'the audit console is not served on Workers: open web/dist/index.html (npm run build:web) and drop a bundle from GET /v1/export on it, or run `vouch verify BUNDLE` to replay it';
  return Response.json({ error: { code: 'ERR_NOT_FOUND', message } }, { status: 404 });
}
