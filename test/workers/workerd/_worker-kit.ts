// Helpers for the specs that drive the Worker inside workerd: JSON requests through SELF (the
// real fetch handler, development mode on a loopback host), and an in-memory audit bundle.
import { SELF } from 'cloudflare:test';
import type { BundleReader, BundleSink } from '../../../src/audit/index.js';
import { concatBytes, utf8 } from '../../../src/canonical/index.js';

const BASE = 'http://localhost';

export async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method,
    // A fetch through a binding carries no Host header of its own; the app's development mode
    // (no VOUCH_AUTH) serves loopback hosts only, as an HTTP client on 127.0.0.1 would send.
    headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, json };
}

export const rpc = (method: string, params: unknown, id: number | string = 1) => call('POST', '/mcp', { jsonrpc: '2.0', id, method, params });

/** An audit bundle held in memory: the sink exportBundle writes, and the reader verifyBundle reads. */
export function memoryBundle(): { sink: BundleSink; reader: BundleReader; files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  const sink: BundleSink = {
    async file(name, size, chunks) {
      const parts: Uint8Array[] = [];
      for await (const c of chunks as AsyncIterable<Uint8Array>) parts.push(c);
      const bytes = concatBytes(...parts);
      if (bytes.length !== size) throw new Error(`${name}: announced ${size} bytes, wrote ${bytes.length}`);
      files.set(name, bytes);
    },
  };
  const reader: BundleReader = {
    text: async (name) => (files.has(name) ? utf8.decode(files.get(name)!) : undefined),
    lines: (name) => {
      const b = files.get(name);
      if (!b) return undefined;
      return (async function* () {
        yield* utf8.decode(b).split('\n');
      })();
    },
    bytes: async (path) => files.get(path),
  };
  return { sink, reader, files };
}
