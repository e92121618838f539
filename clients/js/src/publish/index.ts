// ringcast-client/publish: the admin API for a Node backend (or any runtime with fetch), typed by
// docs/openapi.yaml. Its types come from ../openapi.ts, generated from the document
// (generate_openapi_types.mjs; a test fails when it is stale), so a field the server refuses —
// `chanel` for `channel`, `"delay": 90` for `"90s"` — is a type error before it is a 400.
import type { paths } from '../openapi.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
// The JSON body of the answer `status` of `method` on `path`.
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: infer R } ? (S extends keyof R ? Json<R[S]> : never) : never;
// The JSON body a `method` on `path` takes.
type Body<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { requestBody: infer B } ? Json<B> : never;

/** `POST /admin/publish`: data, and optionally an audience, when, how long, paced, sticky. */
export type PublishRequest = Body<'/admin/publish', 'post'>;
/** `200`: published at once to `recipients` live sessions. */
export type Published = Answer<'/admin/publish', 'post', 200>;
/** `202`: scheduled for `at` (Unix ms). */
export type Scheduled = Answer<'/admin/publish', 'post', 202>;
export type ScheduledList = Answer<'/admin/scheduled', 'get', 200>;
export type Cancelled = Answer<'/admin/scheduled/{id}', 'delete', 200>;
export type Reach = Answer<'/admin/messages/{id}', 'get', 200>;
export type TakenDown = Answer<'/admin/messages/{id}', 'delete', 200>;
export type MessageList = Answer<'/admin/messages', 'get', 200>;
export type KickRequest = Body<'/admin/kick', 'post'>;
export type Kicked = Answer<'/admin/kick', 'post', 200>;
export type Presence = Answer<'/admin/presence', 'get', 200>;
export type Stats = Answer<'/admin/stats', 'get', 200>;
/** Every error's body: `{"error": "<code>", "message": "..."}`. */
export type ApiError = Answer<'/admin/publish', 'post', 400>;
/** Exactly one of a channel, a user, or the top N channels (1-100). */
export type PresenceQuery = { channel: string } | { user: string } | { top: number };

export interface PublishClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** --admin-token. */
  adminToken: string;
  /** A fetch implementation (default: the runtime's global fetch, Node 18+). */
  fetch?: typeof fetch;
}

/** A refusal by the server: the HTTP status and its `Error` body. */
export class RingcastApiError extends Error {
  readonly status: number;
  readonly code: ApiError['error'] | 'unexpected';

  constructor(status: number, code: ApiError['error'] | 'unexpected', message: string) {
    super(`${status} ${code}: ${message}`);
    this.name = 'RingcastApiError';
    this.status = status;
    this.code = code;
  }
}

export interface PublishClient {
  /** Publishes at once (`Published`) or, with `at`/`delay` in the future, schedules (`Scheduled`). */
  publish(body: PublishRequest): Promise<Published | Scheduled>;
  /** The scheduled publishes, earliest first. */
  scheduled(): Promise<ScheduledList>;
  /** Cancels a scheduled publish (404: it is not waiting). */
  cancelScheduled(id: string): Promise<Cancelled>;
  /** The newest messages in history with their reach (limit 1-100, default 10). */
  messages(limit?: number): Promise<MessageList>;
  /** A message's reach while it is in history. */
  reach(id: number): Promise<Reach>;
  /** Takes a message down at once, on every node. */
  takeDown(id: number): Promise<TakenDown>;
  /** Closes a user's live connections and drops their sessions. */
  kick(user: KickRequest['user']): Promise<Kicked>;
  presence(query: PresenceQuery): Promise<Presence>;
  stats(): Promise<Stats>;
}

/** Whether a publish answer is a schedule (202) rather than a publish (200). */
export function isScheduled(answer: Published | Scheduled): answer is Scheduled {
  return 'scheduled' in answer;
}

export function createPublishClient(options: PublishClientOptions): PublishClient {
  const base = options.url.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('ringcast-client/publish: no fetch (pass options.fetch)');

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${options.adminToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetchImpl(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RingcastApiError(res.status, 'unexpected', `not JSON: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const err = json as Partial<ApiError>;
      throw new RingcastApiError(res.status, err.error ?? 'unexpected', err.message ?? text.slice(0, 200));
    }
    return json as T;
  }
  const id = (n: number | string) => encodeURIComponent(String(n));

  return {
    publish: (body) => call('POST', '/admin/publish', body),
    scheduled: () => call('GET', '/admin/scheduled'),
    cancelScheduled: (scheduledId) => call('DELETE', `/admin/scheduled/${id(scheduledId)}`),
    messages: (limit) => call('GET', limit === undefined ? '/admin/messages' : `/admin/messages?limit=${id(limit)}`),
    reach: (messageId) => call('GET', `/admin/messages/${id(messageId)}`),
    takeDown: (messageId) => call('DELETE', `/admin/messages/${id(messageId)}`),
    kick: (user) => call('POST', '/admin/kick', { user }),
    presence: (query) => {
      const [key, value] = Object.entries(query)[0] as [string, string | number];
      return call('GET', `/admin/presence?${key}=${id(value)}`);
    },
    stats: () => call('GET', '/admin/stats'),
  };
}

/** One publish without keeping a client: `publish(body, { url, adminToken })`. */
export function publish(body: PublishRequest, options: PublishClientOptions): Promise<Published | Scheduled> {
  return createPublishClient(options).publish(body);
}
