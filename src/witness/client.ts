// A log's client for one witness's add-checkpoint (tlog-witness): POST with a deadline, keep-alive
// (fetch's default agent), and the parsed answer. Network failure is a result, never a throw.
// Portable (fetch + AbortSignal.timeout; redirects are not followed, and workerd's fetch has no
// redirect: 'error', so a 3xx is read and answered as Node's refused redirect was: unavailable).
import { formatAddCheckpoint, parseConflictSize, type AddCheckpointRequest } from './request.js';

export type AddCheckpointAnswer =
  | { kind: 'cosigned'; lines: string[] }
  | { kind: 'conflict'; size: number | undefined }
  | { kind: 'refused'; status: number; reason: string }
  | { kind: 'unavailable'; reason: string };

const MAX_ANSWER = 256 * 1024;

export async function postAddCheckpoint(url: string, req: AddCheckpointRequest, timeoutMs: number): Promise<AddCheckpointAnswer> {
  let res: Response;
  let body: string;
  try {
    res = await fetch(`${url.replace(/\/$/, '')}/add-checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: formatAddCheckpoint(req),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    body = await res.text();
  } catch (e) {
    return { kind: 'unavailable', reason: (e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e as Error).message };
  }
  if (res.status >= 300 && res.status < 400) return { kind: 'unavailable', reason: `HTTP ${res.status}: the witness redirected, and redirects are not followed` };
  if (body.length > MAX_ANSWER) return { kind: 'refused', status: res.status, reason: 'answer too large' };
  if (res.status === 200) {
    const lines = body.split('\n').filter((l) => l.length > 0).map((l) => `${l}\n`);
    return { kind: 'cosigned', lines: lines.filter((l) => l.startsWith('\u2014 ')) };
  }
  if (res.status === 409) return { kind: 'conflict', size: res.headers.get('content-type')?.startsWith('text/x.tlog.size') ? parseConflictSize(body) : undefined };
  if (res.status >= 500 || res.status === 429) return { kind: 'unavailable', reason: `HTTP ${res.status}` };
  return { kind: 'refused', status: res.status, reason: body.trim().slice(0, 300) };
}
