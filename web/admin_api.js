// The admin HTTP API with its bearer token. The token lives in sessionStorage only: it dies with
// the tab and is never written where other tabs or later visits could read it.

const TOKEN_KEY = 'ringcast.adminToken';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Calls the admin API; resolves to the JSON reply, rejects with an ApiError. */
export async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${token.get() ?? ''}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, 'network', `server unreachable (${err.message})`);
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page, say): report the raw text below.
  }
  if (!response.ok) {
    throw new ApiError(response.status, json?.error ?? `http_${response.status}`,
      json?.message ?? (text.trim() || response.statusText));
  }
  return json;
}
