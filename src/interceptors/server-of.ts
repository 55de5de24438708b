// Which MCP server (trust boundary) a message belongs to. The gateway knows its upstream; a
// host can say so in `_meta["io.vouch/server"]`; otherwise tool names of the reference MCP
// servers, then the resource URI, give a best guess. Pure: same inputs, same answer (replay).
// The answer is signed into the entry and exported as telemetry: a name the operator configured is
// kept as it is, any other (caller or payload text) is a recorded label (builtin/recorded-text.ts).
import { recordedLabel } from './builtin/recorded-text.js';
import type { Phase } from './types.js';

export const UNKNOWN_SERVER = 'unknown';
export const SERVER_META_KEY = 'io.vouch/server';

const REFERENCE_SERVERS: Record<string, string[]> = {
  filesystem: [
    'read_file', 'read_text_file', 'read_media_file', 'read_multiple_files', 'write_file', 'edit_file',
    'create_directory', 'list_directory', 'list_directory_with_sizes', 'directory_tree', 'move_file',
    'search_files', 'get_file_info', 'list_allowed_directories',
  ],
  sqlite: ['read_query', 'write_query', 'create_table', 'list_tables', 'describe_table', 'append_insight'],
  git: [
    'git_status', 'git_diff_unstaged', 'git_diff_staged', 'git_diff', 'git_commit', 'git_add', 'git_reset',
    'git_log', 'git_create_branch', 'git_checkout', 'git_show', 'git_init', 'git_branch',
  ],
  memory: [
    'create_entities', 'create_relations', 'add_observations', 'delete_entities', 'delete_observations',
    'delete_relations', 'read_graph', 'search_nodes', 'open_nodes',
  ],
  fetch: ['fetch'],
  shell: ['run_command', 'execute_command', 'shell'],
  browser: [
    'puppeteer_navigate', 'puppeteer_screenshot', 'puppeteer_click', 'puppeteer_fill', 'puppeteer_select',
    'puppeteer_hover', 'puppeteer_evaluate', 'browser_navigate', 'browser_navigate_back', 'browser_snapshot',
    'browser_click', 'browser_type', 'browser_fill_form', 'browser_select_option', 'browser_hover',
    'browser_evaluate', 'browser_take_screenshot', 'browser_press_key', 'browser_close', 'browser_tabs',
  ],
  time: ['get_current_time', 'convert_time'],
};

/** Tool name -> server for the reference MCP servers; a deployment's toolMap overrides entries. */
export const DEFAULT_TOOL_SERVERS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(REFERENCE_SERVERS).flatMap(([server, tools]) => tools.map((t) => [t, server]))),
);

// Resource URI schemes that name a reference server rather than a host.
const SCHEME_SERVERS: Record<string, string> = { file: 'filesystem' };

export interface ServerOfArgs {
  /** The upstream server the gateway forwards to, when there is one. */
  upstream?: string;
  /** The caller's `_meta` (request context). */
  meta?: Record<string, unknown>;
  toolName?: string;
  event: string;
  /** A response names no server of its own: a `name` or `uri` in it is the answer's content, not its target. */
  phase?: Phase;
  payload?: unknown;
  toolMap?: Record<string, string>;
}

/**
 * Precedence: gateway upstream > `_meta["io.vouch/server"]` > tool map (toolMap over the
 * reference defaults) > the tool name itself > resource URI authority (or scheme) > "unknown".
 */
export function serverOf(args: ServerOfArgs): string {
  if (nonEmpty(args.upstream)) return args.upstream;
  const declared = args.meta?.[SERVER_META_KEY];
  if (nonEmpty(declared)) return recordedLabel(declared);
  const fromPayload = args.phase !== 'response';
  const tool = args.toolName ?? (args.event === 'tools/call' && fromPayload ? field(args.payload, 'name') : undefined);
  if (nonEmpty(tool)) {
    if (args.toolMap && Object.hasOwn(args.toolMap, tool)) return args.toolMap[tool];
    return Object.hasOwn(DEFAULT_TOOL_SERVERS, tool) ? DEFAULT_TOOL_SERVERS[tool] : recordedLabel(tool);
  }
  const uri = args.event.startsWith('resources/') && fromPayload ? field(args.payload, 'uri') : undefined;
  if (nonEmpty(uri)) {
    const server = serverOfUri(uri);
    if (server) return recordedLabel(server);
  }
  return UNKNOWN_SERVER;
}

// The userinfo ends at the authority's LAST `@`, as URL parsers split it: a password may hold an
// `@`, and what follows the first one is still password, never the server.
function serverOfUri(uri: string): string | undefined {
  // Special schemes (http, https, ws, file...) as a URL parser reads them: `\` ends the authority too,
  // so `https://evil.example\@good.example/` names evil.example, the host a client would reach.
  if (/^(https?|wss?|ftp):\/\//i.test(uri)) {
    try {
      const host = new URL(uri).host;
      if (host) return host.toLowerCase();
    } catch {
      // not a URL a client could reach: read the authority as written
    }
  }
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(uri)?.[1];
  if (authority) return authority.slice(authority.lastIndexOf('@') + 1).toLowerCase() || undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return undefined;
  return Object.hasOwn(SCHEME_SERVERS, scheme) ? SCHEME_SERVERS[scheme] : scheme;
}

// A payload is the request params; accept the whole JSON-RPC message (`params.name`) too.
function field(payload: unknown, key: string): string | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const rec = payload as Record<string, unknown>;
  if (typeof rec[key] === 'string') return rec[key];
  const params = rec.params;
  if (params !== null && typeof params === 'object' && typeof (params as Record<string, unknown>)[key] === 'string') {
    return (params as Record<string, string>)[key];
  }
  return undefined;
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}
