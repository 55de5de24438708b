// The gateway in front of the real server-filesystem over a temporary folder: the server may
// touch the whole folder, the Cedar policy only allows reads inside files/allowed/ and no writes.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { filesystemCmd, makeWorkspace, startKit, textOf, verifyWithJwks, type Kit, type Workspace } from './_gateway.js';

let kit: Kit;
let ws: Workspace;
let root: string;

async function deniedBy(p: Promise<unknown>, policyId: string): Promise<void> {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as McpError & { data?: Record<string, unknown> };
  expect(e).toBeInstanceOf(McpError);
  expect(e.code).toBe(-32001);
  expect(e.message).toContain(policyId);
  expect(verifyWithJwks(kit.rt, e.data!.receipt).ok).toBe(true);
}

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-fs-');
  root = join(ws.dir, 'files');
  writeFileSync(join(ws.allowed, 'notes.txt'), 'allowed notes\n');
  mkdirSync(join(root, 'secret'));
  writeFileSync(join(root, 'secret', 'keys.txt'), 'top secret\n');
  // The server is allowed the whole files/ folder: only the gateway's policy keeps secret/ out.
  kit = await startKit(() => filesystemCmd(root), ws);
});
afterAll(async () => {
  await kit?.close();
});

describe('gateway in front of server-filesystem', () => {
  it('is named "filesystem" and lists only the read tools', async () => {
    expect(kit.rt.serverName).toBe('filesystem');
    const names = (await kit.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'list_directory']));
    for (const w of ['write_file', 'edit_file', 'create_directory', 'move_file']) expect(names).not.toContain(w);
  });

  it('reads inside the allowed folder', async () => {
    const r = await kit.client.callTool({ name: 'read_text_file', arguments: { path: join(ws.allowed, 'notes.txt') } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain('allowed notes');
    expect(verifyWithJwks(kit.rt, r._meta!['io.vouch/receipt']).ok).toBe(true);
    const dir = await kit.client.callTool({ name: 'list_directory', arguments: { path: ws.allowed } });
    expect(textOf(dir)).toContain('notes.txt');
  });

  it('denies reads outside it, which the server itself would have allowed', async () => {
    await deniedBy(kit.client.callTool({ name: 'read_text_file', arguments: { path: join(root, 'secret', 'keys.txt') } }), 'filesystem-inside-allowed');
    await deniedBy(kit.client.callTool({ name: 'read_file', arguments: { path: join(root, 'secret', 'keys.txt') } }), 'filesystem-inside-allowed');
    await deniedBy(kit.client.callTool({ name: 'list_directory', arguments: { path: root } }), 'filesystem-inside-allowed');
  });

  it('denies a path that climbs out with ..', async () => {
    await deniedBy(kit.client.callTool({ name: 'read_text_file', arguments: { path: `${ws.allowed}/../secret/keys.txt` } }), 'filesystem-no-traversal');
  });

  it('denies writes, even inside the allowed folder, and nothing is written', async () => {
    const target = join(ws.allowed, 'new.txt');
    await deniedBy(kit.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } }), 'filesystem-no-writes');
    await deniedBy(kit.client.callTool({ name: 'create_directory', arguments: { path: join(ws.allowed, 'sub') } }), 'filesystem-no-writes');
    await deniedBy(kit.client.callTool({ name: 'edit_file', arguments: { path: join(ws.allowed, 'notes.txt'), edits: [{ oldText: 'allowed', newText: 'changed' }] } }), 'filesystem-no-writes');
    await deniedBy(kit.client.callTool({ name: 'move_file', arguments: { source: join(ws.allowed, 'notes.txt'), destination: join(ws.allowed, 'moved.txt') } }), 'filesystem-no-writes');
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(ws.allowed, 'sub'))).toBe(false);
    expect(existsSync(join(ws.allowed, 'notes.txt'))).toBe(true);
  });
});
