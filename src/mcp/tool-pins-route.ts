// `POST /v1/tools/approve` on a listening gateway (admin role): approve a changed tool definition
// while the gateway runs (its log is locked, so the CLI cannot). Body {server?, tool, digest}; the
// approval is a signed `pin` entry by the caller's principal, and takes effect on the next listing.
import type { ServerResponse } from 'node:http';
import { isDigest } from '../canonical/index.js';
import type { ToolPins } from './tool-pins.js';

export const TOOLS_APPROVE_PATH = '/v1/tools/approve';

type Rec = Record<string, unknown>;

/** The answer to an approval request: status and JSON body. `caller` undefined: no auth (loopback development mode). */
export async function approveTool(pins: ToolPins | undefined, body: unknown, caller: { principal: string; roles: string[] } | undefined): Promise<{ status: number; body: Rec }> {
  const error = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
  if (caller && !caller.roles.includes('admin')) return error(403, 'ERR_FORBIDDEN', 'approving a tool definition needs the admin role');
  if (!pins) return error(409, 'ERR_CONFIG', 'tool pinning is off in this gateway\'s config (tools.pinning: false)');
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Rec;
  const server = b.server ?? pins.server;
  if (server !== pins.server) return error(400, 'ERR_INPUT', `this gateway fronts server ${pins.server}, not ${JSON.stringify(server)}`);
  if (typeof b.tool !== 'string' || b.tool.length === 0 || b.tool.length > 256) return error(400, 'ERR_INPUT', '/tool: the tool name, a non-empty string');
  if (!isDigest(b.digest)) return error(400, 'ERR_INPUT', '/digest: sha256:<64 hex>');
  const before = pins.get(b.tool);
  const seq = await pins.approve(b.tool, b.digest, caller ? caller.principal : 'local-operator');
  return { status: 200, body: { server: pins.server, tool: b.tool, digest: b.digest, seq, previous: before?.pinned ?? null, pending: before?.pending ?? null } };
}

export function sendJson(res: ServerResponse, r: { status: number; body: Rec }): void {
  res.writeHead(r.status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(r.body));
}
