// An upstream that dies mid-session: the call in flight and every call after get a clear MCP
// error, the gateway stays up, what was decided is in the log, and the log verifies clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { digestJson } from '../../src/canonical/index.js';
import { entriesOf, everythingCmd, executionOf, startKit, textOf, vouch, type Kit } from './_gateway.js';

let kit: Kit;
let inFlightError: McpError;

beforeAll(async () => {
  kit = await startKit(everythingCmd);
});
afterAll(async () => {
  await kit?.close();
});

async function rpcError(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

describe('gateway with an upstream that crashes', () => {
  it('answers the call in flight and the next ones with a clear error, and keeps running', async () => {
    expect(textOf(await kit.client.callTool({ name: 'echo', arguments: { message: 'before' } }))).toBe('Echo: before');
    let started!: () => void;
    const inFlight = new Promise<void>((r) => (started = r));
    const call = kit.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 10, steps: 20 } }, undefined, { onprogress: () => started() });
    await inFlight; // the upstream is running it
    process.kill(kit.upstream.pid!, 'SIGKILL');

    const during = await rpcError(call);
    expect(during.code).toBe(-32002);
    expect(during.message).toContain('upstream server "everything" is not available');
    expect(during.message).toContain('may or may not have run');
    inFlightError = during;

    const after = await rpcError(kit.client.callTool({ name: 'echo', arguments: { message: 'after' } }));
    expect(after.code).toBe(-32002);
    expect(after.message).toContain('it has exited or closed the connection');
    expect(kit.gateway.isUpstreamOpen()).toBe(false);
    await expect(kit.client.ping()).resolves.toBeDefined(); // the gateway itself still answers
    expect(kit.lines.some((l) => l.msg === 'upstream closed')).toBe(true);
  });

  it('logged the decision for the call in flight and an execution entry saying it failed', async () => {
    const entries = await entriesOf(kit.rt);
    // The last allowed tools/call: the long-running one (the call after the crash was refused undecided).
    const decision = entries.filter((e) => e.type === 'decision' && e.event === 'tools/call' && e.phase === 'request' && (e.decision as { effect: string }).effect === 'allow').at(-1)!;
    // Entries hold payloads by digest only: the stored input names the tool.
    const input = await kit.rt.log.payload((decision.input as { digest: `sha256:${string}` }).digest);
    expect(new TextDecoder().decode(input)).toContain('trigger-long-running-operation');
    const execution = await executionOf(kit.rt, decision.seq); // appended just after the error was answered
    expect(execution).toMatchObject({ event: 'tools/call', drift: { severity: 'none' } });
    // The result digest is of the error the client was given: the call's outcome is unknown.
    const message = inFlightError.message.replace(/^MCP error -?\d+: /, '');
    expect((execution.result as { digest: string }).digest).toBe(digestJson({ error: { code: -32002, message } }));
  });

  it('leaves a log that verifies clean after shutdown', async () => {
    await kit.close();
    const r = vouch(['log', 'verify', '--data', kit.ws.data]);
    expect(r.stdout).toContain('log verify: clean');
    expect(r.status).toBe(0);
  });
});
