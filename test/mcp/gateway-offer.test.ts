// The gateway tells its operator what it did: what the upstream offers, what the policy hides (by
// name) and which config to edit; with --listen, the keys and /healthz beside /mcp. And the
// example config fits the bundled server-everything (its prompts, resources and trigger tools).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatOffer, surveyUpstream, type UpstreamOffer } from '../../src/mcp/gateway-offer.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { entriesOf, everythingCmd, makeWorkspace, ROOT, startKit, textOf, VOUCH_BIN, type Kit } from './_gateway.js';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

describe('start summary, in-process (server-everything, the gateway fixture config)', () => {
  let kit: Kit;
  let offer: UpstreamOffer;
  beforeAll(async () => {
    kit = await startKit(() => everythingCmd());
    offer = await surveyUpstream(kit.gateway.client, kit.gateway.capabilities, kit.rt.policies.clientToServer, kit.rt.viewer(), kit.rt.configPath);
    // The survey is the gateway's own business: no listing recorded for it (the client has listed nothing yet).
    await new Promise((r) => setTimeout(r, 300));
    expect((await entriesOf(kit.rt)).filter((e) => /^(tools|prompts|resources)\/list$/.test(String(e.event)))).toEqual([]);
  }, 60_000);
  afterAll(() => kit?.close());

  it('names what the upstream offers and what the policy hides: exactly what the client does not see', async () => {
    expect(offer.tools!.offered).toEqual(expect.arrayContaining(['echo', 'get-env', 'trigger-sampling-request']));
    expect(offer.tools!.hidden).toContain('get-env');
    const seen = (await kit.client.listTools()).tools.map((t) => t.name);
    expect([...seen].sort()).toEqual(offer.tools!.offered.filter((n) => !offer.tools!.hidden.includes(n)).sort());
    const prompts = (await kit.client.listPrompts()).prompts.map((p) => p.name);
    expect([...prompts].sort()).toEqual(offer.prompts!.offered.filter((n) => !offer.prompts!.hidden.includes(n)).sort());
    expect(offer.filter).toBe('discovery');
  });

  it('says it in words, with the config to edit', () => {
    const text = formatOffer(offer).join('\n');
    expect(text).toMatch(new RegExp(`upstream "everything" offers ${offer.tools!.offered.length} tools, ${offer.prompts!.offered.length} prompts, ${offer.resources!.offered.length} resources`));
    expect(text).toMatch(new RegExp(`the policy hides ${offer.tools!.hidden.length} of ${offer.tools!.offered.length} tools: .*get-env`));
    expect(text).toContain(`edit ${kit.ws.config}`);
    expect(text).toContain('gateway-policy.cedar');
  });
});

describe('formatOffer', () => {
  it('on the bundled example, says how to get a config of one\'s own rather than to edit the bundled file', () => {
    const text = formatOffer({ server: 'x', tools: { offered: ['a', 'b'], hidden: ['b'] }, filter: 'discovery', config: '/pkg/fixtures/config/vouch.example.yaml', policyFiles: [], ownConfig: '/home/me/.vouch/vouch.yaml' }).join('\n');
    expect(text).toContain('upstream "x" offers 2 tools');
    expect(text).toContain('the policy hides 1 of 2 tools: b');
    expect(text).toMatch(/bundled example .*vouch init.* \/home\/me\/\.vouch\/vouch\.yaml/);
    const none = formatOffer({ server: 'x', tools: { offered: ['a'], hidden: [] }, config: '/c.yaml', policyFiles: [] }).join('\n');
    expect(none).toContain('hides none of the 1 tool');
    expect(none).toContain('no discovery-filter');
  });
});

describe('the example config fits the bundled server-everything', () => {
  let kit: Kit;
  let offer: UpstreamOffer;
  beforeAll(async () => {
    const ws = { ...makeWorkspace('vouch-gw-example-'), config: EXAMPLE };
    kit = await startKit(() => everythingCmd(), ws);
    offer = await surveyUpstream(kit.gateway.client, kit.gateway.capabilities, kit.rt.policies.clientToServer, kit.rt.viewer(), kit.rt.configPath);
  }, 60_000);
  afterAll(() => kit?.close());

  it('shows its real prompts, its documents and its sampling and elicitation triggers; hides get-env', () => {
    expect(offer.prompts!.offered.sort()).toEqual(['args-prompt', 'completable-prompt', 'resource-prompt', 'simple-prompt']);
    expect(offer.prompts!.hidden).toEqual([]);
    expect(offer.resources!.offered.length).toBeGreaterThan(0);
    expect(offer.resources!.hidden.filter((u) => u.startsWith('demo://resource/static/document/'))).toEqual([]);
    const visible = offer.tools!.offered.filter((n) => !offer.tools!.hidden.includes(n));
    expect(visible).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request', 'trigger-elicitation-request']));
    expect(offer.tools!.hidden).toEqual(expect.arrayContaining(['get-env', 'gzip-file-as-resource', 'trigger-url-elicitation']));
  });

  it('gets a prompt and reads a document by their real names', async () => {
    const p = await kit.client.getPrompt({ name: 'simple-prompt' });
    expect(p.messages.length).toBeGreaterThan(0);
    const doc = offer.resources!.offered.find((u) => u.startsWith('demo://resource/static/document/'))!;
    const r = await kit.client.readResource({ uri: doc });
    expect(r.contents[0].uri).toBe(doc);
  });

  it('relays the sampling trigger to the client (bounded), and the elicitation form with its "do not give us your pin" field', async () => {
    const s = await kit.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'a haiku', maxTokens: 100 } });
    expect(textOf(s)).toContain('sampled by the test client');
    const before = kit.calls.elicitation.length;
    const e = await kit.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(e.isError ?? false).toBe(false);
    // Was: denied as "password data" because a description said not to give a pin.
    expect(kit.calls.elicitation.length).toBe(before + 1);
    expect(JSON.stringify(kit.calls.elicitation.at(-1))).toContain('do not give us your phone number, pin');
  });
});

describe('vouch gateway --listen (CLI process): the summary on stderr; keys and /healthz beside /mcp', () => {
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let base = '';
  const ws = makeWorkspace('vouch-gw-listen-');
  beforeAll(async () => {
    child = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--upstream-cmd', everythingCmd(), '--listen', '127.0.0.1:0', '--principal', 'alice', '--wait', 'signed'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    for (let i = 0; i < 600 && !stderr.includes('to change what is hidden'); i++) await new Promise((r) => setTimeout(r, 50));
    base = /vouch gateway on (http:\/\/[^ ]+)\/mcp/.exec(stdout)![1];
  }, 60_000);
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('prints, at start, what the upstream offers and what the policy hides, by name, and the config', () => {
    expect(stderr).toMatch(/vouch gateway: upstream "everything" offers \d+ tools, \d+ prompts, \d+ resources/);
    expect(stderr).toMatch(/vouch gateway: {3}the policy hides \d+ of \d+ tools: .*get-env/);
    expect(stderr).toContain(`edit ${ws.config}`);
    expect(stdout).toContain(`${base}/.well-known/vouch/keys`);
  });

  it('serves the JWKS, the vkeys and /healthz; a receipt from /mcp verifies with the served keys', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, server: 'everything' });
    const jwks = await (await fetch(`${base}/.well-known/vouch/keys`)).json();
    expect(jwks.keys.length).toBeGreaterThan(0);
    const vkeys = await (await fetch(`${base}/.well-known/vouch/vkeys`)).text();
    // The same keys in both: each JWKS key is a vkey under the log's own key name (its origin, which
    // its checkpoints are signed under), with a `# key` line giving its sizes in that log; every
    // vkey line is one of the JWKS keys.
    const ORIGIN = 'vouch.local/default';
    const served = parseTrust(vkeys);
    const published = parseTrust(JSON.stringify(jwks)).jwks;
    const same = (a: { alg: string; publicKey: Uint8Array }, b: { alg: string; publicKey: Uint8Array }) => a.alg === b.alg && Buffer.from(a.publicKey).equals(Buffer.from(b.publicKey));
    for (const k of published) {
      const named = served.vkeys.filter((v) => v.name === ORIGIN && same(v, k));
      expect(named, `${k.alg} key under ${ORIGIN}`).toHaveLength(1);
      expect(served.windows?.some((w) => w.origin === ORIGIN && w.label === `${ORIGIN}+${Buffer.from(named[0].keyId).toString('hex')}`)).toBe(true);
    }
    for (const v of served.vkeys) expect(published.some((k) => same(v, k)), `vkey ${v.name} ${v.alg} is a JWKS key`).toBe(true);

    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const r = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await client.close();
    const receipt = r._meta!['io.vouch/receipt'] as { checkpoint: string };
    for (const trust of [parseTrust(JSON.stringify(jwks)), parseTrust(vkeys)]) expect(verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) }).ok).toBe(true);
  });

  it('the ready line names the ML-DSA-65 key by its JWKS kid, labelled as `vouch serve` labels it', async () => {
    const jwks = await (await fetch(`${base}/.well-known/vouch/keys`)).json();
    const ml = jwks.keys.find((k: { alg?: string }) => k.alg === 'ML-DSA-65');
    const first = stdout.split('\n')[0];
    expect(first).toMatch(new RegExp(`^vouch gateway on ${base}/mcp -> everything  tenant default  principal alice  policy sha256:[0-9a-f]{12}…  wait signed  key ${ml.kid} \\(JWKS kid\\)$`));
  });

  it('keeps the web rules on the new routes: a foreign Origin is refused, only GET answers', async () => {
    const foreign = await fetch(`${base}/.well-known/vouch/keys`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${base}/healthz`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(405);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});
