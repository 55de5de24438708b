// What the Worker refuses to run, inside workerd: interceptors whose guarantees need shared state
// or code generation are a ConfigError naming each one (never skipped), and a deployment without
// its signing secret answers every request with ERR_CONFIG instead of deciding unsigned.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../../src/worker.js';
import type { Json } from '../../../src/interceptors/types.js';
import { cedarVersion, resolveConfigDocument } from '../../../src/policy/index.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from '../../../src/worker/config.js';
import { activateWorkerPolicy, UNSUPPORTED_ON_WORKERS, workerConfigIssues } from '../../../src/worker/policy.js';

const withInterceptors = (extra: Json[]): Json => {
  const doc = structuredClone(configDocument) as unknown as { interceptors: Json[] };
  doc.interceptors.push(...extra);
  return doc as unknown as Json;
};

describe('the Worker config', () => {
  it('the embedded config activates: Cedar runs in workerd (web build)', async () => {
    const policy = await activateWorkerPolicy(configDocument);
    expect(policy.interceptors.map((i) => i.descriptor.name)).toContain('authz');
    expect(policy.engines.cedar).toBe(cedarVersion);
  });

  it('refuses schema-guard, rate-limit, cross-boundary-guard and remote servers, naming each', async () => {
    const doc = withInterceptors([
      { name: 'schemas', use: 'schema-guard' },
      { name: 'rate', use: 'rate-limit', config: { limit: 10, windowMs: 1000 } },
      { name: 'exfiltration', use: 'cross-boundary-guard' },
      { name: 'corp', remote: { url: 'https://interceptors.example/mcp' } },
    ]);
    const issues = workerConfigIssues(resolveConfigDocument(doc));
    const base = (configDocument as unknown as { interceptors: unknown[] }).interceptors.length;
    expect(issues.map((i) => i.path)).toEqual([`/interceptors/${base}/use`, `/interceptors/${base + 1}/use`, `/interceptors/${base + 2}/use`, `/interceptors/${base + 3}/remote`]);
    await expect(activateWorkerPolicy(doc)).rejects.toMatchObject({ code: 'ERR_CONFIG', issues: expect.arrayContaining(issues) });
    expect(Object.keys(UNSUPPORTED_ON_WORKERS).sort()).toEqual(['cross-boundary-guard', 'rate-limit', 'schema-guard']);
  });

  it('without its signing secret the Worker answers ERR_CONFIG and decides nothing', async () => {
    const res = await worker.fetch(new Request('http://localhost/healthz', { headers: { host: 'localhost' } }), { ...env, VOUCH_SIGNING_KEY: undefined });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_SIGNING_KEY') } });
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
