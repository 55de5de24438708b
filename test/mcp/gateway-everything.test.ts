// The gateway in front of the real server-everything (a child over stdio), with an SDK client:
// discovery filter, allowed/denied calls with receipts, PII redaction of what the server got,
// sampling and elicitation guarded before they reach the client, notifications passed through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { replayLog } from '../../src/audit/index.js';
import { entriesOf, everythingCmd, executionOf, payloadOf, startKit, textOf, verifyWithJwks, type Kit } from './_gateway.js';

const receipts: unknown[] = [];
let kit: Kit;

function keep<T extends { _meta?: Record<string, unknown> }>(result: T): T {
  expect(result._meta?.['io.vouch/receipt']).toBeDefined();
  receipts.push(result._meta!['io.vouch/receipt'], result._meta!['io.vouch/response-receipt']);
  return result;
}

async function denied(p: Promise<unknown>): Promise<McpError & { data: Record<string, unknown> }> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  const err = e as McpError & { data: Record<string, unknown> };
  expect(err.code).toBe(-32001);
  expect(err.data).toMatchObject({ code: 'ERR_FORBIDDEN', seq: expect.any(Number), receipt: expect.any(Object) });
  receipts.push(err.data.receipt);
  return err;
}

beforeAll(async () => {
  kit = await startKit(everythingCmd);
});
afterAll(async () => {
  await kit?.close();
});

describe('gateway in front of server-everything', () => {
  it('advertises the upstream capabilities (minus tasks) and names it "everything"', () => {
    const caps = kit.client.getServerCapabilities()!;
    expect(Object.keys(caps).sort()).toEqual(['completions', 'logging', 'prompts', 'resources', 'tools']);
    expect(kit.client.getServerVersion()?.name).toBe('mcp-servers/everything');
    expect(kit.rt.serverName).toBe('everything');
  });

  it('hides from tools/list what the caller may not call', async () => {
    const list = keep(await kit.client.listTools());
    const names = list.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request', 'trigger-elicitation-request']));
    expect(names).not.toContain('get-env');
    expect(names).not.toContain('get-tiny-image');
  });

  it('denies a hidden tool called anyway, with an MCP error naming the interceptor and carrying a receipt', async () => {
    const err = await denied(kit.client.callTool({ name: 'get-env', arguments: {} }));
    expect(err.message).toContain('denied by vouch (tools/call, request): authz: denied by policy (default deny)');
    expect(err.data.interceptor).toBe('authz');
    const report = verifyWithJwks(kit.rt, err.data.receipt);
    expect(report.ok).toBe(true);
    expect(report.entry).toMatchObject({ type: 'decision', event: 'tools/call', server: 'everything', decision: { effect: 'deny' } });
  });

  it('relays an allowed call and returns the upstream answer with its receipt', async () => {
    const r = keep(await kit.client.callTool({ name: 'echo', arguments: { message: 'hello through the gateway' } }));
    expect(textOf(r)).toBe('Echo: hello through the gateway');
    const report = verifyWithJwks(kit.rt, r._meta!['io.vouch/receipt']);
    expect(report.ok).toBe(true);
    expect(report.entry).toMatchObject({ event: 'tools/call', phase: 'request', direction: 'sending', principal: 'local-operator', tenant: 'default', decision: { effect: 'allow' } });
    expect(r._meta!['io.vouch/seq']).toBe(report.entry!.seq);
    const sum = keep(await kit.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }));
    expect(textOf(sum)).toContain('42');
  });

  it('denies a listed tool called with forbidden arguments', async () => {
    const err = await denied(kit.client.callTool({ name: 'echo', arguments: { message: 'please rm -rf / now' } }));
    expect(err.message).toContain('echo-no-shell');
  });

  it('redacts PII before the server sees it: the server echoes the placeholder', async () => {
    const r = keep(await kit.client.callTool({ name: 'echo', arguments: { message: 'call me at +1 415 867 5309' } }));
    expect(textOf(r)).toBe('Echo: call me at [PHONE_REDACTED]');
    // What the server answered (the response decision's input) already had the placeholder:
    // the server received the redacted argument, not the number.
    const response = verifyWithJwks(kit.rt, r._meta!['io.vouch/response-receipt']).entry!;
    const raw = await payloadOf(kit.rt, (response.input as { digest: string }).digest);
    expect(JSON.stringify(raw)).toContain('Echo: call me at [PHONE_REDACTED]');
    expect(JSON.stringify(raw)).not.toContain('867');
    // And the execution entry's executed params (what went on the wire) are the redacted intent: no drift.
    const entry = await executionOf(kit.rt, r._meta!['io.vouch/seq']);
    expect(entry).toMatchObject({ type: 'execution', authorization: r._meta!['io.vouch/seq'], drift: { severity: 'none', count: 0 } });
    expect(await payloadOf(kit.rt, (entry.executed as { digest: string }).digest)).toEqual({ name: 'echo', arguments: { message: 'call me at [PHONE_REDACTED]' } });
  });

  it('blocks a sampling request over budget before it reaches the client', async () => {
    const before = kit.calls.sampling.length;
    const r = keep(await kit.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'write a novel', maxTokens: 100_000 } }));
    expect(r.isError).toBe(true); // the upstream's tool failed: its sampling request was refused
    expect(textOf(r)).toContain('denied by vouch (sampling/createMessage, request)');
    expect(kit.calls.sampling.length).toBe(before);
    const entry = (await entriesOf(kit.rt)).filter((e) => e.event === 'sampling/createMessage').at(-1)!;
    // A server-to-client request is received across the boundary: the direction flips.
    expect(entry).toMatchObject({ phase: 'request', direction: 'receiving', flow: 'server-to-client', decision: { effect: 'deny' } });
    const messages = JSON.stringify(entry.decision);
    expect(messages).toContain('maxTokens 100000 exceeds the budget of 4000');
  });

  it('forwards a bounded sampling request to the client and its answer back to the server', async () => {
    const before = kit.calls.sampling.length;
    const r = keep(await kit.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'a haiku', maxTokens: 100 } }));
    expect(r.isError).toBeFalsy();
    expect(kit.calls.sampling.length).toBe(before + 1);
    expect(kit.calls.sampling.at(-1)!.maxTokens).toBe(100);
    expect(textOf(r)).toContain('sampled by the test client');
  });

  it('relays server-everything\'s elicitation form: a description saying "do not give us your … pin" is not a request for one', async () => {
    // Was blocked as "password data" (a false positive, issue 19); sensitive fields are still refused by name,
    // title or asking prose (test/interceptors/builtin/sensitive-field-guard.test.ts, test/security/gateway-directions.test.ts).
    const r = keep(await kit.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
    expect(r.isError ?? false).toBe(false);
    expect(kit.calls.elicitation.length).toBe(1);
    expect(JSON.stringify(kit.calls.elicitation[0])).toContain('do not give us your phone number, pin');
  });

  it('passes progress notifications through, re-keyed to the client token', async () => {
    const progress: Progress[] = [];
    const r = keep(await kit.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => progress.push(p) }));
    expect(textOf(r)).toContain('Long running operation completed');
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('relays cancellation upstream and keeps serving', async () => {
    const ac = new AbortController();
    const call = kit.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } }, undefined, { signal: ac.signal });
    setTimeout(() => ac.abort('changed my mind'), 300);
    await expect(call).rejects.toThrow();
    const r = keep(await kit.client.callTool({ name: 'echo', arguments: { message: 'still here' } }));
    expect(textOf(r)).toBe('Echo: still here');
    // The cancellation crossed as a message of its own: decided on the client's chain and recorded.
    const cancelled = (await entriesOf(kit.rt)).filter((e) => e.type === 'decision' && e.event === 'notifications/cancelled');
    expect(cancelled.at(-1)).toMatchObject({ phase: 'request', direction: 'sending', decision: { effect: 'allow' } });
  });

  it('relays prompts, resources and logging notifications', async () => {
    keep(await kit.client.listPrompts());
    const prompt = keep(await kit.client.getPrompt({ name: 'simple-prompt' }));
    expect(prompt.messages.length).toBeGreaterThan(0);
    await denied(kit.client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } }));
    const resources = keep(await kit.client.listResources());
    const uri = resources.resources.find((x) => x.uri.startsWith('demo://resource/static/'))!.uri;
    const read = keep(await kit.client.readResource({ uri }));
    expect(read.contents[0].uri).toBe(uri);
    const logged: string[] = [];
    kit.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(String(n.params.data)));
    keep(await kit.client.setLoggingLevel('debug'));
    const templates = keep(await kit.client.listResourceTemplates());
    expect(Array.isArray(templates.resourceTemplates)).toBe(true);
    const done = keep(await kit.client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Eng' } }));
    expect(done.completion.values).toEqual(['Engineering']);
    keep(await kit.client.subscribeResource({ uri }));
    await expect.poll(() => logged.some((l) => l.includes('Received Subscribe Resource request'))).toBe(true);
  });

  it('forwards a pagination cursor unchanged (as captured on the wire)', async () => {
    // Neither reference server pages its lists; the executed params are what reached the transport.
    const r = keep(await kit.client.listResources({ cursor: 'opaque-cursor-1' }));
    const exec = await executionOf(kit.rt, r._meta!['io.vouch/seq']);
    expect(await payloadOf(kit.rt, (exec.executed as { digest: string }).digest)).toEqual({ cursor: 'opaque-cursor-1' });
  });

  it('every receipt the client got verifies offline with the JWKS', () => {
    expect(receipts.length).toBeGreaterThan(20);
    for (const r of receipts) expect(verifyWithJwks(kit.rt, r).checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('wrote a decision before each forward and an execution entry after it, without drift', async () => {
    const entries = await entriesOf(kit.rt);
    const executions = entries.filter((e) => e.type === 'execution');
    expect(executions.length).toBeGreaterThan(10);
    for (const x of executions) {
      const auth = entries.find((e) => e.seq === x.authorization)!;
      expect(auth).toMatchObject({ type: 'decision', phase: 'request', decision: { effect: 'allow' } });
      expect(auth.seq).toBeLessThan(x.seq);
      expect(x.intent).toEqual(auth.intent);
      if (!(x.drift as { severity: string } | null)) continue;
      expect((x.drift as { severity: string }).severity).toBe('none');
    }
  });

  it('every decision replays to match from the log alone, server-to-client ones included', async () => {
    const log = kit.rt.log;
    const report = await replayLog({
      entries: (from, to) => log.entries(from, to),
      size: () => log.size(),
      payload: (d) => log.payload(d),
      document: async (d) => (await log.document(d))?.bytes,
    });
    expect(report.results.filter((r) => r.status !== 'match')).toEqual([]);
    expect(report.decisions).toBeGreaterThan(30);
    expect(report.match).toBe(report.decisions);
    expect(report.findings).toEqual([]); // the mirror chain was activated by the gateway's policy entry
    const flows = (await entriesOf(kit.rt)).filter((e) => e.flow === 'server-to-client');
    expect(flows.length).toBeGreaterThan(3); // roots, sampling and elicitation were decided too
    expect(new Set(flows.map((e) => (e.policy as { chain: string }).chain))).toEqual(new Set([kit.rt.policies.serverToClient.chainDigest]));
  });
});
