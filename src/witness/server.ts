// The witness over HTTP (Node only): POST <prefix>/add-checkpoint as tlog-witness defines it,
// plus GET <prefix>/vkeys (this witness's cosigner vkeys, for log operators to copy). Bodies are
// bounded; nothing else is served.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors.js';
import { MAX_REQUEST_BYTES } from './request.js';
import { addCheckpoint, type WitnessOptions, type WitnessResponse } from './witness.js';

export interface WitnessServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface WitnessServerOptions extends WitnessOptions {
  host?: string;
  port?: number;
  prefix?: string;
  vkeys: string[];
  /** Each add-checkpoint answered (a cosignature or a refusal); `error` for an internal failure (500). */
  onAnswer?: (r: WitnessResponse, error?: string) => void;
}

export async function startWitnessServer(opts: WitnessServerOptions): Promise<WitnessServer> {
  const prefix = (opts.prefix ?? '').replace(/\/$/, '');
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === `${prefix}/vkeys`) return send(200, opts.vkeys.join('\n') + '\n');
    if (path !== `${prefix}/add-checkpoint`) return send(404, 'not found\n');
    if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > MAX_REQUEST_BYTES) {
        send(413, 'request body too large\n');
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (n > MAX_REQUEST_BYTES) return;
      let r: WitnessResponse;
      try {
        r = addCheckpoint(Buffer.concat(chunks).toString('utf8'), opts);
      } catch (e) {
        r = { status: 500, contentType: 'text/plain; charset=utf-8', body: 'internal error\n' };
        opts.onAnswer?.(r, (e as Error).message);
        return send(r.status, r.body, r.contentType);
      }
      opts.onAnswer?.(r);
      send(r.status, r.body, r.contentType);
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new ConfigError('ERR_CONFIG', `cannot listen on ${host}:${opts.port ?? 0}: ${e.code ?? e.message}`)));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${prefix}`,
    port,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
