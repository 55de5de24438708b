// The HTTP bench's load generator, run by bench/_http-job.ts in its own process so that its work
// never shares the server's event loop: a raw HTTP/1.1 keep-alive client over node:net, with
// every request's bytes built before the clock starts. Reads one LoadJob (JSON) on stdin, opens
// `concurrency` connections to 127.0.0.1, sends one request at a time on each (no pipelining),
// and prints one JSON line, a LoadResult: {rate, p50, p99, errors, n}.
//
// Each connection first carries one untimed request (`warm`) and the clock starts once every
// connection has had its answer: the job measures callers on open keep-alive connections, as an
// agent's client keeps its connection. Without it the first requests of a job measure how fast the
// server accepts a burst of new connections: libuv accepts one connection per event-loop turn
// since libuv/libuv#3696 (Node 20 has 1.46), and under load a turn lasts 10-30 ms, so the 64th of
// a burst was accepted up to 250 ms after the first and its first request was the job's p99.
import { connect, type Socket } from 'node:net';
import { text } from 'node:stream/consumers';
import type { LoadJob, LoadResult } from './_http-job.js';
import { percentile } from './_stats.js';

const HEAD_END = Buffer.from('\r\n\r\n');

const job = JSON.parse(await text(process.stdin)) as LoadJob;
const requests = buildRequests(job);
const expect = job.expect === undefined ? [] : [job.expect].flat().map((e) => Buffer.from(e));
const latencies = new Float64Array(job.total);
const starts = new Float64Array(job.total);
let next = 0;
let errors = 0;

function buildRequests({ method, path, port, bodies, headers }: LoadJob): Buffer[] {
  const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (method === 'GET') return [Buffer.from(`${head}\r\n`)];
  if (!bodies?.length) throw new Error('a POST job needs bodies');
  const more = Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return bodies.map((b) => Buffer.from(`${head}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${more}Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`));
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: job.port, noDelay: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Status, body offset and total length of the response at the start of `buf`, once its head is in. */
function parseHead(buf: Buffer): { status: number; bodyStart: number; length: number } | undefined {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const [statusLine, ...headers] = buf.toString('latin1', 0, end).split('\r\n');
  if (!statusLine.startsWith('HTTP/1.1 ')) throw new Error(`not an HTTP/1.1 response: ${statusLine}`);
  let contentLength: number | undefined;
  for (const h of headers) {
    const name = h.slice(0, h.indexOf(':')).toLowerCase();
    if (name === 'transfer-encoding') throw new Error(`the load client reads Content-Length bodies only, got ${h}`);
    if (name === 'content-length') contentLength = Number(h.slice(name.length + 1));
  }
  if (contentLength === undefined) throw new Error(`response without Content-Length: ${statusLine}`);
  const bodyStart = end + HEAD_END.length;
  return { status: Number(statusLine.slice(9, 12)), bodyStart, length: bodyStart + contentLength };
}

/** A keep-alive connection with one request in flight: each whole answer goes to `onAnswer` (a 200 carrying `expect` is ok). */
interface Conn {
  socket: Socket;
  onAnswer: (ok: boolean) => void;
  onError: (e: Error) => void;
}

function attach(socket: Socket): Conn {
  const conn: Conn = { socket, onAnswer: () => undefined, onError: () => undefined };
  let buf: Buffer = Buffer.alloc(0);
  let head: ReturnType<typeof parseHead>;
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    head ??= parseHead(buf);
    if (head === undefined || buf.length < head.length) return;
    if (buf.length > head.length) return conn.onError(new Error('bytes past the end of a response'));
    const body = buf.subarray(head.bodyStart);
    const ok = head.status === 200 && expect.every((e) => body.includes(e));
    buf = Buffer.alloc(0);
    head = undefined;
    conn.onAnswer(ok);
  });
  socket.on('error', (e) => conn.onError(e));
  socket.on('close', () => conn.onError(new Error('the server closed a connection mid-run'))); // no-op once settled
  return conn;
}

/** One untimed request on connection `k`: once it is answered the server has accepted the connection. */
function warm(conn: Conn, k: number): Promise<void> {
  return new Promise((resolve, reject) => {
    conn.onAnswer = (ok) => (ok ? resolve() : reject(new Error(`the warm-up request on connection ${k} was refused or lacks ${JSON.stringify(job.expect)}`)));
    conn.onError = reject;
    conn.socket.write(requests[k % requests.length]);
  });
}

/** Send requests on one connection, one at a time, until the job has none left. */
function drive(conn: Conn): Promise<void> {
  return new Promise((resolve, reject) => {
    let i = -1;
    let sentAt = 0;
    const send = () => {
      if (next >= job.total) {
        conn.socket.destroy();
        return resolve();
      }
      i = next++;
      sentAt = performance.now();
      starts[i] = sentAt;
      conn.socket.write(requests[i % requests.length]);
    };
    conn.onAnswer = (ok) => {
      latencies[i] = performance.now() - sentAt;
      if (!ok) errors++;
      send();
    };
    conn.onError = reject;
    send();
  });
}

const conns = (await Promise.all(Array.from({ length: job.concurrency }, open))).map(attach);
await Promise.all(conns.map(warm));
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(conns.map(drive));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const samples = Array.from(latencies);
const result: LoadResult = { rate: job.total / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99), errors, n: samples.length, clientCpuMs: (cpu.user + cpu.system) / 1000 / job.total };
if (process.env.TRACE) (await import('node:fs')).writeFileSync(process.env.TRACE, JSON.stringify({ origin: performance.timeOrigin + t0, starts: Array.from(starts, (x) => x - t0), lat: samples }));
process.stdout.write(JSON.stringify(result) + '\n');
