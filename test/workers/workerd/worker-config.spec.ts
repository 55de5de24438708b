// The Worker's config inside workerd: the example config Node runs activates with every built-in
// (stateful ones on Durable Object state), what cannot run is a ConfigError naming each one (never
// skipped), a deployment without its signing secret answers ERR_CONFIG instead of deciding, and
// /audit names the way to the console (the page is not served at the edge).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../../src/worker.js';
import type { Json } from '../../../src/interceptors/types.js';
import { cedarVersion } from '../../../src/policy/index.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import { activateWorkerPolicy } from '../../../src/worker/policy.js';
import { durableStateStores } from '../../../src/worker/state-stores.js';

const withInterceptors = (extra: Json[]): Json => {
  const doc = structuredClone(configDocument) as unknown as { interceptors: Json[] };
  doc.interceptors.push(...extra);
  return doc as unknown as Json;
};

describe('the Worker config', () => {
  it('the embedded example config activates with every built-in: Cedar (web build), schema-guard, the stateful guards', async () => {
    const policy = await (await activateWorkerPolicy(configDocument, durableStateStores(env))).current();
    const uses = (configDocument as unknown as { interceptors: { use?: string }[] }).interceptors.map((d) => d.use);
    expect(uses).toEqual(expect.arrayContaining(['cedar-policy', 'schema-guard', 'rate-limit', 'cross-boundary-guard', 'discovery-filter', 'pii-redactor', 'secret-redactor']));
    expect(policy.interceptors).toHaveLength(uses.length);
    expect(policy.engines.cedar).toBe(cedarVersion);
  });

  it('refuses what it cannot run, naming each (an unknown built-in)', async () => {
    const doc = withInterceptors([{ name: 'nope', use: 'no-such-guard' }]);
    await expect(activateWorkerPolicy(doc, durableStateStores(env))).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('no-such-guard') });
  });

  it('without its signing secret the Worker answers ERR_CONFIG and decides nothing', async () => {
    const res = await worker.fetch(new Request('http://localhost/healthz', { headers: { host: 'localhost' } }), { ...env, VOUCH_SIGNING_KEY: undefined });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_SIGNING_KEY') } });
  });

  it('POST /v1/policy is refused with ERR_CONFIG (400): the policy changes with a new build:config and deploy', async () => {
    const res = await worker.fetch(new Request('http://localhost/v1/policy', { method: 'POST', headers: { host: 'localhost', 'content-type': 'application/json' }, body: JSON.stringify(configDocument) }), env);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'ERR_CONFIG', message: 'this deployment cannot activate a policy at run time' } });
  });

  it('/audit says where the console is instead of serving a page the Worker does not have', async () => {
    for (const path of ['/audit', '/audit/', '/audit/assets/console.js']) {
      const res = await worker.fetch(new Request(`http://localhost${path}`, { headers: { host: 'localhost' } }), env);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'ERR_NOT_FOUND', message: expect.stringContaining('GET /v1/export') } });
    }
  });

  // Settings (`${VOUCH_FILES_ROOT:-/tmp/allowed}` in the example) are the Worker's vars, resolved
  // when the app is built, not values fixed on the build machine.
  const rootsDecision = async (vars: Record<string, string | undefined>, uri: string) => {
    const body = { event: 'roots/list', phase: 'response', payload: { roots: [{ uri }] }, context: { sessionId: 's-settings', server: 'everything' } };
    const res = await worker.fetch(new Request('http://localhost/v1/authorize', { method: 'POST', headers: { host: 'localhost', 'content-type': 'application/json' }, body: JSON.stringify(body) }), { ...env, ...vars });
    return { status: res.status, json: (await res.json()) as { effect?: string; error?: { code: string; message: string } } };
  };

  it('a setting comes from the Worker vars, else its default', async () => {
    expect((await rootsDecision({ VOUCH_FILES_ROOT: '/srv/shared' }, 'file:///srv/shared/docs')).json.effect).toBe('allow');
    expect((await rootsDecision({ VOUCH_FILES_ROOT: '/srv/shared' }, 'file:///tmp/allowed/docs')).json.effect).toBe('deny');
    expect((await rootsDecision({}, 'file:///tmp/allowed/docs')).json.effect).toBe('allow');
    expect((await rootsDecision({}, 'file:///srv/shared/docs')).json.effect).toBe('deny');
  });

  it('a var a policy cannot hold safely stops the Worker with ERR_CONFIG naming the setting', async () => {
    const r = await rootsDecision({ VOUCH_FILES_ROOT: '/srv/../etc' }, 'file:///etc');
    expect(r.status).toBe(500);
    expect(r.json.error).toEqual({ code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_FILES_ROOT') });
  });

  it('a malformed secret is named, never echoed', async () => {
    const secret = '{"v":1,"alg":"ML-DSA-65","seed":"bm90LWEtc2VlZA=="}';
    const res = await worker.fetch(new Request('http://localhost/healthz', { headers: { host: 'localhost' } }), { ...env, VOUCH_SIGNING_KEY: secret });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(500);
    expect(body.error.code).toBe('ERR_CONFIG');
    expect(body.error.message).toContain('VOUCH_SIGNING_KEY');
    expect(body.error.message).not.toContain('bm90LWEtc2VlZA');
  });
});
