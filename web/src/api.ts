// The console's calls to the vouch service: same origin, the audit bearer token (kept for the
// tab's session only) when one is set; none in development mode (loopback).
const TOKEN_KEY = 'vouch.audit.token';

export const getToken = (): string => sessionStorage.getItem(TOKEN_KEY) ?? '';
export const setToken = (t: string): void => (t ? sessionStorage.setItem(TOKEN_KEY, t) : sessionStorage.removeItem(TOKEN_KEY));

/** Opened from a file (offline mode): there is no service to call. */
export const isOffline = (): boolean => location.protocol === 'file:';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function headersOf(more: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', ...more };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

async function answerOf<T>(res: Response): Promise<T> {
  const json = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? 'ERR_HTTP', json?.error?.message ?? `HTTP ${res.status}`);
  return json as T;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers = headersOf(body === undefined ? {} : { 'content-type': 'application/json' });
  return answerOf<T>(await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
}

export const getJson = <T>(path: string): Promise<T> => call<T>('GET', path);
export const postJson = <T>(path: string, body: unknown): Promise<T> => call<T>('POST', path, body);

/** A GET that answers `undefined` when nothing changed since `etag` (304): what live updates poll with. */
export async function getJsonIfChanged<T>(path: string, etag: string | undefined): Promise<{ json: T; etag: string | undefined } | undefined> {
  const res = await fetch(path, { headers: headersOf(etag ? { 'if-none-match': etag } : {}), cache: 'no-store' });
  if (res.status === 304) return undefined;
  return { json: await answerOf<T>(res), etag: res.headers.get('etag') ?? undefined };
}
