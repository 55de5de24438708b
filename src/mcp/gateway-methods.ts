// What the gateway relays: the client requests forwarded per upstream capability, the server
// requests per client capability, and the loose schemas that let a proxy keep every params field.
import { z } from 'zod';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapability } from './gateway-peers.js';

/** Client requests forwarded for each upstream capability; anything else the gateway does not relay. */
export const FORWARDED: [Exclude<keyof ServerCapabilities, 'tasks'>, string[]][] = [
  ['tools', ['tools/list', 'tools/call']],
  ['prompts', ['prompts/list', 'prompts/get']],
  ['resources', ['resources/list', 'resources/templates/list', 'resources/read']],
  ['completions', ['completion/complete']],
  ['logging', ['logging/setLevel']],
];
export const SERVER_REQUESTS: [string, ClientCapability][] = [
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
];

// Loose request schemas: the SDK would strip params fields it does not know; a proxy must not.
export const anyRequest = (method: string) => z.object({ method: z.literal(method), params: z.unknown().optional() }).passthrough();
export const ANY_PARAMS = z.looseObject({});
export const ANY_RESULT = z.looseObject({});
