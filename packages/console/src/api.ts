/**
 * The console's calls: same origin, the session cookie sent by the browser, a custom header that
 * a cross-site form cannot add (the service refuses state changes without it), JSON both ways.
 */
export class ApiError extends Error {
  constructor(readonly status: number, readonly detail: string) {
    super(detail);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when any call finds the session gone (expired, signed out elsewhere, application disabled). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** How far the service's clock is ahead of this browser's, learnt from each answer's Date header. */
let serverClockAheadMs = 0;

/** Now on the service's clock (to a second): a record's age is judged as the service judges it. */
export const serverNow = (): number => Date.now() + serverClockAheadMs;

/** A refused sign-in is a wrong password, not a session that ended. */
const SIGN_IN_PATHS: ReadonlySet<string> = new Set(['/console/session', '/operator/session']);

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'x-telematics-console': '1', accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const date = Date.parse(response.headers.get('date') ?? '');
  if (Number.isFinite(date)) serverClockAheadMs = date - Date.now();
  const data: unknown = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const detail = typeof (data as { detail?: unknown } | null)?.detail === 'string' ? (data as { detail: string }).detail : response.statusText;
    if (response.status === 401 && !SIGN_IN_PATHS.has(path)) for (const listener of signedOutListeners) listener();
    throw new ApiError(response.status, detail);
  }
  return data as T;
}

/** The public interface's routes, answered on the console session (same paths under /console/api). */
export const apiCall = <T>(method: Method, path: string, body?: unknown): Promise<T> => call<T>(method, `/console/api${path}`, body);
