// Issue 35 item 6. Attacker: a hostile caller of the file tools behind the example config
// (fixtures/config), in front of the real server-filesystem. The example policy judges path-like
// argument names; a path under any other name (`uri`, `url`, `target`, `root`), a path-like name
// with an invisible or look-alike character in it, or `arguments` that are not an object at all
// must not get an allow. Two layers: the example's schema guard closes the file tools (an argument
// their inputSchema does not declare is a deny), and argument keys are normalized (format and
// control characters stripped, NFKC) before any policy sees them, whatever the config.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { authorizeMessage } from '../../src/interceptors/builtin/cedar-policy.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, filesystemCmd, textOf } from '../mcp/_gateway.js';
import { examplePolicySet, makeCtx } from '../interceptors/builtin/_policy-helpers.js';
import { post, testServer } from '../http/_server.js';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

const HOSTILE: [string, Record<string, unknown>][] = [
  ['uri', { uri: '/etc/passwd' }],
  ['url', { url: 'file:///etc/passwd' }],
  ['target', { target: '/etc/passwd' }],
  ['root', { root: '/' }],
  ['a declared path and an undeclared uri', { path: '__ALLOWED__/notes.txt', uri: '/etc/passwd' }],
  ['pa\\u200bth', { 'pa\u200bth': '/etc/passwd' }],
  ['path\\u2060 beside a good path', { path: '__ALLOWED__/notes.txt', 'path\u2060': '/etc/passwd' }],
  ['a fullwidth path', { 'ｐａｔｈ': '/etc/passwd' }],
  ['a bidi override in the key', { 'pa\u202eht': '/etc/passwd' }],
];

describe('the example config in front of server-filesystem', () => {
  let rt: GatewayRuntime;
  let client: Client;
  let allowed: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-example-fs-'));
    allowed = join(dir, 'files', 'allowed');
    mkdirSync(allowed, { recursive: true });
    writeFileSync(join(allowed, 'notes.txt'), 'allowed notes\n');
    // The example's one setting: the folder its policy lets file tools use.
    process.env.VOUCH_FILES_ROOT = allowed;
    rt = await openGateway({ data: join(dir, 'data'), config: EXAMPLE, upstream: { command: filesystemCmd(join(dir, 'files')), stderr: 'ignore' }, thread: false });
    const upstream = rt.connectUpstream() as StdioClientTransport;
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up, { upstream });
    client = new Client({ name: 'hostile-caller', version: '1.0.0' });
    await client.connect(down);
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await closeReplayed(rt);
    delete process.env.VOUCH_FILES_ROOT;
  });

  const denied = async (args: Record<string, unknown>, name = 'read_file') => {
    const e = await client.callTool({ name, arguments: JSON.parse(JSON.stringify(args).replaceAll('__ALLOWED__', allowed)) }).then(
      () => undefined,
      (x: unknown) => x as McpError,
    );
    expect(e).toBeInstanceOf(McpError);
    expect(e!.code).toBe(-32001);
    return e!;
  };

  it('a file tool called before it was listed is denied (its arguments cannot be checked)', async () => {
    const e = await denied({ path: join(allowed, 'notes.txt') });
    expect(e.message).toContain('not listed yet');
    // The client is told what to do (message and data.hint); the recorded reason stays the decision's own.
    const HINT = "list the server's tools first (tools/list)";
    expect(e.message).toContain(HINT);
    const data = e.data as { seq: number; reason: string; hint?: string };
    expect(data.hint).toBe(HINT);
    expect(data.reason).not.toContain(HINT);
    const recorded = JSON.stringify((await entriesOf(rt)).filter((x) => x.type === 'decision' && x.event === 'tools/call'));
    expect(recorded).toContain('not listed yet');
    expect(recorded).not.toContain(HINT);
  });

  it('lists the file tools, and a read inside the files root is allowed', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'read_text_file', 'list_directory']));
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: join(allowed, 'notes.txt') } });
    expect(textOf(r)).toContain('allowed notes');
  });

  // Issue 37 item 2: the folder the policy names is usable itself, not only what is below it.
  it('list_directory on the files root itself is allowed (and on a sibling that shares its prefix, denied)', async () => {
    const r = await client.callTool({ name: 'list_directory', arguments: { path: allowed } });
    expect(textOf(r)).toContain('notes.txt');
    expect(textOf(await client.callTool({ name: 'list_directory', arguments: { path: `${allowed}/` } }))).toContain('notes.txt');
    const e = await denied({ path: `${allowed}-not` }, 'list_directory');
    expect(e.message).toContain('tools-forbid-path-outside');
    expect((e.data as { hint?: string }).hint).toBeUndefined(); // a deny of a listed tool has no listing hint
  });

  // Issue 37 item 2: a write by a principal without the operator role names the forbid that says why.
  it('write_file without the operator role is denied with a reason naming the role', async () => {
    const e = await denied({ path: join(allowed, 'new.txt'), content: 'x' }, 'write_file');
    expect(e.message).toContain('tools-forbid-writes-without-role-operator');
  });

  it.each(HOSTILE)('read_file with %s is denied', async (_what, args) => {
    const e = await denied(args);
    expect(e.message).toMatch(/schemas|authz/);
  });

  it.each(HOSTILE)('list_directory with %s is denied', async (_what, args) => {
    await denied(args, 'list_directory');
  });

  it('every hostile call is a recorded deny naming the undeclared argument', async () => {
    const denies = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'tools/call' && (e.decision as { effect: string }).effect === 'deny');
    expect(denies.length).toBeGreaterThanOrEqual(2 * HOSTILE.length + 1);
    expect(JSON.stringify(denies)).toContain('must NOT have additional properties');
  });
});

describe('the example config over REST: arguments that are not an object', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    s = await testServer({ config: EXAMPLE });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ['a bare string', '/etc/passwd'],
    ['a list', ['/etc/passwd']],
    ['a number', 7],
  ])('read_file with %s as arguments is denied', async (_what, args) => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'read_file', arguments: args }, context: { server: 'filesystem' } });
    expect(r.json.effect).toBe('deny');
  });
});

describe('argument keys are normalized before any policy sees them (Cedar alone, no schema guard)', () => {
  const decide = (args: unknown, name = 'read_file') => authorizeMessage(examplePolicySet(), { name, arguments: args }, makeCtx('tools/call', 'request'));

  it.each([
    ['pa\u200bth', { 'pa\u200bth': '/etc/shadow' }],
    ['file\u00ad', { ['file\u00ad']: '/etc/shadow' }],
    ['fullwidth', { 'ｐａｔｈ': '/etc/shadow' }],
    ['a control character', { 'pa\u0000th': '/etc/shadow' }],
    ['nested', { options: { 'file\u200cPath': '/root/.ssh/id_ed25519' } }],
  ])('%s is judged as the path it reads as', (_what, args) => {
    const r = decide(args);
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toContain("tools-forbid-path-outside on path '");
  });

  it('two keys that read alike once normalized are refused, not merged', () => {
    const r = decide({ path: '/tmp/allowed/a', 'pa\u200bth': '/etc/shadow' });
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toMatch(/read alike/);
  });

  it('__entity hidden behind a zero-width space is still dropped (no forged entity)', () => {
    const r = decide({ path: '/tmp/allowed/a', ['__ent\u200bity']: { type: 'Role', id: 'admin' } });
    expect(r.valid).toBe(true);
  });

  it.each([
    ['a bare string', '/etc/shadow'],
    ['a list', ['/etc/shadow']],
    ['a number', 7],
    ['null', null],
  ])('arguments that are %s are denied before Cedar is asked', (_what, args) => {
    const r = decide(args);
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toContain('arguments');
  });

  it('no arguments at all is still a call with none', () => {
    expect(authorizeMessage(examplePolicySet(), { name: 'echo' }, makeCtx('tools/call', 'request')).valid).toBe(true);
  });
});
