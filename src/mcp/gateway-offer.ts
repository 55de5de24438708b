// What the upstream offers and what the policy hides from the client, for the operator at start:
// the gateway lists the upstream's tools, prompts and resources itself (nothing reaches the client,
// nothing is recorded) and judges each the way discovery-filter would for this principal.
import type { Client } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { formatOf, parseConfigText } from '../policy/index.js';
import type { Activated } from '../decide/index.js';
import { filterListing } from '../interceptors/builtin/discovery-filter.js';
import type { GatewayRuntime } from './gateway-node.js';
import { createUpstreamClient } from './gateway-upstream.js';

export interface OfferKind {
  offered: string[];
  hidden: string[];
}

export interface UpstreamOffer {
  server: string;
  tools?: OfferKind;
  prompts?: OfferKind;
  resources?: OfferKind;
  /** The discovery-filter interceptor that hides items; absent: the chain hides nothing (calls are still decided). */
  filter?: string;
  /** The files to edit to change what is hidden. */
  config: string;
  policyFiles: string[];
  /** Set when `config` is the bundled example (nothing of the operator's own): where their copy would go. */
  ownConfig?: string;
}

export interface Viewer {
  principal: string;
  roles?: string[];
  tenant: string;
  server: string;
  time: string;
}

const KINDS = [
  { key: 'tools', event: 'tools/list', id: 'name', list: (c: Client, cursor?: string) => c.listTools(cursor ? { cursor } : undefined) },
  { key: 'prompts', event: 'prompts/list', id: 'name', list: (c: Client, cursor?: string) => c.listPrompts(cursor ? { cursor } : undefined) },
  { key: 'resources', event: 'resources/list', id: 'uri', list: (c: Client, cursor?: string) => c.listResources(cursor ? { cursor } : undefined) },
] as const;
const MAX_PAGES = 100;

/** The policy files a chain config file names, as paths an operator can open (the resolved config has them inlined). */
export function policyFilesOf(configPath: string): string[] {
  try {
    const raw = parseConfigText(readFileSync(configPath, 'utf8'), formatOf(configPath), configPath) as { policies?: { files?: unknown } };
    const files = raw?.policies?.files;
    return Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string').map((f) => resolve(dirname(configPath), f)) : [];
  } catch {
    return [];
  }
}

/** List everything the upstream offers (all pages) and what the chain's discovery-filter would hide from `viewer`. */
export async function surveyUpstream(client: Client, capabilities: Partial<Record<'tools' | 'prompts' | 'resources', unknown>>, policy: Activated, viewer: Viewer, configPath: string): Promise<UpstreamOffer> {
  const filterDecl = policy.resolved.config.interceptors.find((d) => 'use' in d && d.use === 'discovery-filter');
  const offer: UpstreamOffer = { server: viewer.server, config: configPath, policyFiles: policyFilesOf(configPath), ...(filterDecl && { filter: filterDecl.name }) };
  for (const kind of KINDS) {
    if (!capabilities[kind.key]) continue;
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = (await kind.list(client, cursor)) as Record<string, unknown>;
      items.push(...((r[kind.key] as unknown[]) ?? []));
      cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
      if (!cursor) break;
    }
    const offered = items.map((i) => String((i as Record<string, unknown>)[kind.id] ?? '(unnamed)'));
    let hidden: string[] = [];
    if (filterDecl) {
      const ctx = { event: kind.event, phase: 'response' as const, direction: 'receiving' as const, ...viewer };
      const out = filterListing(policy.resolved.policySet, { [kind.key]: items }, ctx);
      hidden = ((out.info as { hidden?: string[] } | undefined)?.hidden ?? []).slice();
    }
    offer[kind.key] = { offered, hidden };
  }
  return offer;
}

/** Connect a fresh upstream (as the gateway's own client would, in the same era), survey it, close it. */
export async function probeUpstream(rt: GatewayRuntime): Promise<UpstreamOffer> {
  const transport = rt.connectUpstream();
  const client = createUpstreamClient(rt.upstreamEra, transport, undefined, 'vouch-gateway-survey');
  await client.connect(transport, { timeout: 60_000, prior: rt.eraMemo.prior });
  rt.eraMemo.remember(client);
  try {
    return await surveyUpstream(client, client.getServerCapabilities() ?? {}, rt.policies.clientToServer, rt.viewer(), rt.configPath);
  } finally {
    await client.close().catch(() => undefined);
  }
}

const MAX_NAMES = 25;
const names = (xs: string[]) => (xs.length <= MAX_NAMES ? xs.join(', ') : `${xs.slice(0, MAX_NAMES).join(', ')}, … and ${xs.length - MAX_NAMES} more`);
const plural = (n: number, word: string) => `${n} ${n === 1 ? word.replace(/s$/, '') : word}`;

/** The operator's summary, one line each. */
export function formatOffer(o: UpstreamOffer): string[] {
  const kinds = KINDS.filter((k) => o[k.key]);
  const lines = [`upstream "${o.server}" offers ${kinds.length ? kinds.map((k) => plural(o[k.key]!.offered.length, k.key)).join(', ') : 'no tools, prompts or resources'}`];
  for (const k of kinds) {
    const { offered, hidden } = o[k.key]!;
    lines.push(hidden.length ? `  the policy hides ${hidden.length} of ${plural(offered.length, k.key)}: ${names(hidden)}` : `  the policy hides none of the ${plural(offered.length, k.key)}`);
  }
  if (!o.filter) lines.push('  (the chain has no discovery-filter, so nothing is hidden; every call is still decided)');
  const files = o.policyFiles.length ? ` (policy: ${o.policyFiles.join(', ')})` : '';
  if (o.ownConfig) lines.push(`  the config in force is the bundled example ${o.config}; to change what is hidden or allowed, run \`vouch init\` to copy it to ${o.ownConfig}, edit it there, and restart`);
  else lines.push(`  to change what is hidden or allowed, edit ${o.config}${files}`);
  return lines;
}
