// The public types: the client's options, its events, and every envelope of docs/protocol.md.

/** A transport: WebSocket (`/ws`), Server-Sent Events (`/sse`) or long-poll (`/poll`). */
export type Transport = 'ws' | 'sse' | 'poll';

/** The client's state; `status` events announce every change. */
export type ClientState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

// Handlers declared as methods are compared bivariantly, so the browser's WebSocket (whose handlers
// take a full MessageEvent/CloseEvent) and the `ws` package's both fit.
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/** What the client uses of a WebSocket (the browser's, or e.g. the `ws` package's in Node). */
export interface WebSocketLike {
  readonly readyState: number;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number }> | null;
  send(data: string): void;
  close(code?: number): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface RingcastOptions {
  /** 1–64 characters of `[A-Za-z0-9_.:@-]` (required). */
  user: string;
  /** Session id (default `'0'`); same charset. With `share`, the shared connection's session is its leader's first sid. */
  sid?: string | number;
  /** Channels to subscribe to, at most 32. */
  channels?: string[];
  /** `'auto'` (ws → sse → poll) or one transport. */
  transport?: 'auto' | Transport;
  /** Base URL of the server; default: the page's origin. Required where there is no page (Node). */
  url?: string | URL;
  /** Resume after this id; default: start from now. */
  since?: number;
  /** On the first connect (no `since`), also replay recent messages: a count (1–100) or a duration (`'30s'`). */
  rewind?: number | string;
  /** WebSocket ping interval (default 20000), shortened to half of `hello.idle_timeout_s`. */
  pingIntervalMs?: number;
  /** No frame at all within this time after a ping: reconnect (default 10000). */
  pongTimeoutMs?: number;
  /** A transport not open within this time counts as failed (default 10000). */
  openTimeoutMs?: number;
  /** Back-off range (defaults 500 and 30000). */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** For a server that requires client tokens: called before every connection attempt. */
  getToken?: () => string | Promise<string>;
  /**
   * Share one connection among the tabs of this origin that connect as the same user to the same
   * server with the same settings (default `true`; only where there is a `document`).
   */
  share?: boolean;
  /**
   * A server on another origin gets this page's cookies over SSE and long-poll too (default
   * `false`; a WebSocket always sends them). The server must list the page's origin in
   * `--allowed-origins`.
   */
  withCredentials?: boolean;
  /** A WebSocket implementation, where the runtime has none (Node 20: e.g. `ws`). */
  WebSocket?: WebSocketConstructor;
  /** A fetch implementation (default: the global `fetch`); SSE without `EventSource` and long-poll use it. */
  fetch?: typeof fetch;
}

// ---- envelopes, server → client ----

export interface HelloEnvelope {
  type: 'hello';
  /** `"user/sid"` */
  session: string;
  resumed: boolean;
  last_id: number;
  gap: boolean;
  heartbeat_s: number;
  idle_timeout_s: number;
  session_ttl_s: number;
}

/** A published message as the client delivers it. */
export interface RingcastMessage<Data = unknown> {
  type?: 'message';
  id: number;
  /** `"*"` (broadcast), the channel, `"user:<id>"`, or `"users"` for a list of users. */
  channel: string;
  /** Unix ms. */
  ts: number;
  /** Unix ms, only for a message with a `ttl`. */
  expires?: number;
  /** Only for a paced message: the window it is spread over. */
  spread_ms?: number;
  data: Data;
}
export interface MessageEnvelope<Data = unknown> extends RingcastMessage<Data> {
  type: 'message';
}

export interface ExpiredEnvelope {
  type: 'expired';
  id: number;
}

export type ReconnectReason = 'timeout' | 'replaced' | 'shutdown' | 'rebalance';
export interface ReconnectEnvelope {
  type: 'reconnect';
  reason: ReconnectReason;
  retry_ms: number;
  last_id: number;
}

export type CloseReason = 'idle' | 'kicked' | 'replaced' | 'slow' | 'expired';
export interface CloseEnvelope {
  type: 'close';
  reason: CloseReason;
}

export interface ErrorEnvelope {
  type: 'error';
  code: string;
  message: string;
}

export interface PongEnvelope {
  type: 'pong';
}

/** A long-poll reply. */
export interface MessagesEnvelope {
  type: 'messages';
  messages: Array<MessageEnvelope | ExpiredEnvelope>;
  last_id: number;
  gap: boolean;
  more?: true;
}

export type ServerEnvelope =
  | HelloEnvelope
  | MessageEnvelope
  | ExpiredEnvelope
  | ReconnectEnvelope
  | CloseEnvelope
  | ErrorEnvelope
  | PongEnvelope
  | MessagesEnvelope;

// ---- client → server (WebSocket) ----

export type ClientFrame =
  | { type: 'ping' }
  | { type: 'ack'; id: number }
  | { type: 'subscribe'; channels: string[] }
  | { type: 'unsubscribe'; channels: string[] };

// ---- events ----

/** Why the state changed: a server reason, or one of the client's own. */
export type StatusReason =
  | ReconnectReason
  | CloseReason
  | 'client'
  | 'network'
  | 'open_timeout'
  | 'ping_timeout'
  | 'too_large'
  | 'subscribe'
  | 'token'
  | 'leader'
  | (string & {});

export interface StatusEvent {
  state: ClientState;
  transport: Transport | null;
  reason: StatusReason | null;
  /** When the next attempt starts, for `reconnecting` (and `connecting` after every transport failed). */
  retryInMs?: number;
}

export interface GapEvent {
  transport: Transport | null;
  lastId: number | null;
}

export interface ExpiredEvent {
  id: number;
}

/** Event name → the `detail` its listeners get. */
export interface RingcastEventMap {
  message: RingcastMessage;
  expired: ExpiredEvent;
  status: StatusEvent;
  gap: GapEvent;
  error: ErrorEnvelope;
}
export type RingcastEventType = keyof RingcastEventMap;
