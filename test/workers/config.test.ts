// The Worker's build inputs, checked on Node: the embedded config is current and is the same
// chain Node resolves from fixtures/config/vouch.worker.yaml; the example config is refused at
// the edge with every reason; the bundled migrations are exactly migrations/*.sql.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/policy/load-config.js';
import type { Json } from '../../src/interceptors/types.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { workerConfigIssues } from '../../src/worker/policy.js';
import { renderWorkerConfig, WORKER_CONFIG_OUT, WORKER_CONFIG_SOURCE } from '../../scripts/build-worker-config.js';

const example = new URL('../../fixtures/config/vouch.example.yaml', import.meta.url).pathname;

describe('the Worker config and migrations', () => {
  it('src/worker/config.generated.json is current (run npm run build:config after changing the config or the policy)', async () => {
    expect(readFileSync(WORKER_CONFIG_OUT, 'utf8')).toBe(await renderWorkerConfig());
  });

  it('the embedded document is the chain Node resolves: same chain and policy digests', async () => {
    const onNode = await loadConfigFile(WORKER_CONFIG_SOURCE);
    const embedded = resolveConfigDocument(JSON.parse(readFileSync(WORKER_CONFIG_OUT, 'utf8')) as Json);
    expect(embedded.chainDigest).toBe(onNode.chainDigest);
    expect(embedded.policyDigest).toBe(onNode.policyDigest);
    expect(workerConfigIssues(embedded)).toEqual([]);
  });

  it('the example config cannot run on Workers, and each reason is named', async () => {
    const issues = workerConfigIssues(await loadConfigFile(example));
    expect(issues.map((i) => i.message.split(':')[0]).sort()).toEqual(['exfiltration', 'rate', 'schemas']);
    expect(issues.find((i) => i.message.startsWith('schemas'))?.message).toMatch(/ajv/);
  });

  it('the Worker bundles every migration, in order (src/worker/migrations.ts)', () => {
    const onDisk = readdirSync(new URL('../../migrations/', import.meta.url)).filter((f) => f.endsWith('.sql')).sort();
    const source = readFileSync(new URL('../../src/worker/migrations.ts', import.meta.url), 'utf8');
    const imported = [...source.matchAll(/from '\.\.\/\.\.\/migrations\/(\d{4}_[a-z0-9_]+\.sql)'/g)].map((m) => m[1]);
    const listed = [...source.matchAll(/file: '(\d{4}_[a-z0-9_]+\.sql)'/g)].map((m) => m[1]);
    expect(imported).toEqual(onDisk);
    expect(listed).toEqual(onDisk);
  });
});
