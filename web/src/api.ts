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

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? 'ERR_HTTP', json?.error?.message ?? `HTTP ${res.status}`);
  return json as T;
}

export const getJson = <T>(path: string): Promise<T> => call<T>('GET', path);
export const postJson = <T>(path: string, body: unknown): Promise<T> => call<T>('POST', path, body);
