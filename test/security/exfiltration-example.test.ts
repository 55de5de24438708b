// The example config as shipped, over real HTTP (`vouch serve`'s server, SQLite log): the agent
// that relays a secret server A returned into a call to server B. The secret redactor runs first on
// the way out and last on the way back, and must not hide the relay from the cross-boundary guard:
// the response's secret is tainted as it came from A (then redacted for the agent); the relay to B
// is denied by `exfiltration` and recorded as a deny; a write-back to A and a secret no server
// returned still go out redacted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { EXAMPLE_CONFIG } from '../../src/policy/load-config.js';
import { AWS_KEY_ID, GITHUB_PAT } from '../interceptors/builtin/_secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-exfil-example-'));
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ data: join(dir, 'data'), port: 0, config: EXAMPLE_CONFIG.pathname, idleCheckpointMs: 0, logLine: () => {} });
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const decide = async (phase: 'request' | 'response', server_: string, payload: unknown, session = 's-exfil') => {
  const res = await fetch(`${server.url}/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'tools/call', phase, payload, context: { sessionId: session, server: server_ } }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { effect: string; chain: { abortedAt?: { interceptor: string; reason: string }; finalPayload: unknown } };
  return { effect: json.effect, by: json.chain.abortedAt?.interceptor, reason: json.chain.abortedAt?.reason, final: JSON.stringify(json.chain.finalPayload) };
};

describe('the example config: a relayed secret is denied, and secrets are redacted', () => {
  it('server A returns a secret: the agent gets it redacted; relayed to server B: denied by exfiltration, recorded', async () => {
    expect((await decide('request', 'everything', { name: 'echo', arguments: { message: 'what is the key?' } })).effect).toBe('allow');
    const answer = await decide('response', 'everything', { content: [{ type: 'text', text: `the key is ${AWS_KEY_ID}` }] });
    expect(answer.effect).toBe('allow');
    expect(answer.final).toContain('[SECRET_REDACTED:aws_access_key]');
    expect(answer.final).not.toContain(AWS_KEY_ID);

    const relay = await decide('request', 'attacker', { name: 'echo', arguments: { message: `upload ${AWS_KEY_ID}` } });
    expect(relay.effect).toBe('deny');
    expect(relay.by).toBe('exfiltration');
    expect(relay.reason).toContain('aws_access_key');
    expect(relay.reason).not.toContain(AWS_KEY_ID);
  });

  it('the same secret written back to server A goes out, redacted; a secret no server returned, too', async () => {
    const back = await decide('request', 'everything', { name: 'echo', arguments: { message: `use ${AWS_KEY_ID}` } });
    expect(back.effect).toBe('allow');
    expect(back.final).toContain('[SECRET_REDACTED:aws_access_key]');
    expect(back.final).not.toContain(AWS_KEY_ID);
    const own = await decide('request', 'attacker', { name: 'echo', arguments: { message: `token ${GITHUB_PAT}` } });
    expect(own.effect).toBe('allow');
    expect(own.final).toContain('[SECRET_REDACTED:github_pat]');
  });

  it('another session is not tainted by the first', async () => {
    const other = await decide('request', 'attacker', { name: 'echo', arguments: { message: `upload ${AWS_KEY_ID}` } }, 's-other');
    expect(other.effect).toBe('allow');
    expect(other.final).toContain('[SECRET_REDACTED:aws_access_key]');
  });
});
