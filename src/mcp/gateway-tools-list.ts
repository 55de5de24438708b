// The upstream's whole tool list, every page as sent: what tool pins digest (tool-pins.ts).
import { ANY_RESULT } from './gateway-methods.js';
import type { UpstreamClient } from './gateway-upstream.js';

/** Every page of the upstream's tools/list, as sent (loose schema: the digest is of what the server said). */
export async function listUpstreamTools(client: UpstreamClient, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: unknown;
  for (let page = 0; page < 1000; page++) {
    const r = (await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } } as never, ANY_RESULT, { timeout: timeoutMs })) as Record<string, unknown>;
    if (Array.isArray(r.tools)) tools.push(...(r.tools as Record<string, unknown>[]));
    cursor = r.nextCursor;
    if (typeof cursor !== 'string') return tools;
  }
  throw new Error('the upstream tools/list did not end after 1000 pages');
}
