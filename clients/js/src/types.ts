// The public types: the client's options, its events, and every envelope of docs/protocol.md.
import type { components } from './openapi.js';

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

// ---- envelopes: the schemas of docs/openapi.yaml (generated into ./openapi.ts), never restated ----

type Schemas = components['schemas'];

export type HelloEnvelope = Schemas['Hello'];

/** A published message as the client delivers it (`data` typed by the caller). */
export type MessageEnvelope<Data = unknown> = Omit<Schemas['Message'], 'data'> & { data: Data };
/** The same, where the envelope's `type` does not matter (a message taken from a poll reply). */
export type RingcastMessage<Data = unknown> = Omit<MessageEnvelope<Data>, 'type'> & {
  type?: 'message';
};

export type ExpiredEnvelope = Schemas['Expired'];
export type ReconnectEnvelope = Schemas['Reconnect'];
export type ReconnectReason = ReconnectEnvelope['reason'];
export type CloseEnvelope = Schemas['Close'];
export type CloseReason = CloseEnvelope['reason'];
/**
 * The server refused a client frame. `code` is open: a newer server may add codes, and the client
 * reports its own `too_many_channels` (channels of a tab left out of a connection shared by tabs).
 */
export type ErrorEnvelope = Omit<Schemas['ClientError'], 'code'> & {
  code: Schemas['ClientError']['code'] | 'too_many_channels' | (string & {});
};
export type PongEnvelope = Schemas['Pong'];
/** A long-poll reply. */
export type MessagesEnvelope = Schemas['Messages'];

/** Everything the server sends: a stream's envelopes and a long-poll's replies. */
export type ServerEnvelope = Schemas['Envelope'] | Schemas['PollReply'];

// ---- client → server (WebSocket) ----

export type ClientFrame = Schemas['ClientMessage'];

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
