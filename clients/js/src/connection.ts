// One connection to the server and everything it owes the protocol: transports with fallback,
// resume with `since`, de-duplication, back-off, acks, runtime channels. It reports to a Sink: the
// tab's own client (a connection of its own), or the leader of shared tabs, which fans out.
import { OPENERS } from './transports.js';
import type { Endpoint, Handlers, OpenConnection } from './transports.js';
import type {
  ClientFrame, ClientState, ErrorEnvelope, GapEvent, HelloEnvelope, RingcastMessage,
  ServerEnvelope, StatusEvent, Transport, WebSocketConstructor,
} from './types.js';

// Close reasons after which reconnecting would only fight the server or another tab.
const FINAL_CLOSE_REASONS = new Set(['kicked', 'replaced']);
// Acks are cumulative: one every this long at most carries the newest, so a burst of messages
// (a resume's backlog) costs a few frames, far below the server's --client-message-rate.
const ACK_INTERVAL_MS = 100;
const PACED_REMEMBERED = 64;

export interface Sink {
  message(message: RingcastMessage): void;
  expired(id: number): void;
  status(status: StatusEvent): void;
  gap(gap: GapEvent): void;
  error(error: ErrorEnvelope): void;
}

/** Everything a connection is made of, resolved from the options. */
export interface ConnectionConfig {
  base: URL;
  user: string;
  sid: string;
  order: readonly Transport[];
  since: number | null;
  rewind?: number | string;
  pingIntervalMs: number;
  pongTimeoutMs: number;
  openTimeoutMs: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  getToken?: () => string | Promise<string>;
  WebSocket: WebSocketConstructor | undefined;
  fetch: typeof fetch;
  withCredentials: boolean;
}

export class Connection implements Endpoint {
  state: ClientState = 'idle';
  transport: Transport | null = null;
  session: HelloEnvelope | null = null; // the last `hello`
  lastId: number | null;
  // After a hello without `since`, the server first sends the promotions in force (and what
  // `rewind` asked for): ids up to hello's last_id that are new to this page, not repeats.
  backlogUntil: number | null = null;
  private backlogSeen = new Set<number>();
  ackedId: number | null = null; // the newest id the page showed (ack())
  private ackSent: number | null = null; // the newest ack written to a WebSocket
  private ackSentAt = -Infinity; // when (performance.now()), for ACK_INTERVAL_MS
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private pacedAckedId: number | null = null; // the newest paced id acked (ack())
  private pacedSeen: number[] = []; // ids of the last paced messages delivered (see deliver)
  private conn: OpenConnection | null = null;
  private generation = 0; // identifies the current attempt; reports from older ones are ignored
  private index = 0; // into `order`
  private opened = false; // the current attempt reached `open`
  private everOpened = false;
  private failures = 0; // consecutive, for the back-off
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private openTimer: ReturnType<typeof setTimeout> | undefined;
  private token: string | null = null; // from getToken, for the current attempt

  constructor(
    private readonly config: ConnectionConfig,
    /** The channels to subscribe to; the owner changes it and calls channelsChanged. */
    readonly channels: Set<string>,
    private readonly sink: Sink,
  ) {
    this.lastId = config.since;
  }

  get pingIntervalMs() { return this.config.pingIntervalMs; }
  get pongTimeoutMs() { return this.config.pongTimeoutMs; }
  get WebSocket() { return this.config.WebSocket; }
  get fetch() { return this.config.fetch; }
  get withCredentials() { return this.config.withCredentials; }

  /** Starts (or restarts after stop()); `state` is what the first status says. */
  start(state: 'connecting' | 'reconnecting' = 'connecting', reason: string | null = null) {
    if (this.state !== 'idle' && this.state !== 'closed') return;
    this.index = 0;
    this.failures = 0;
    this.everOpened = false;
    this.attempt(state, reason);
  }

  stop(reason = 'client') {
    this.disposeConnection();
    this.setStatus('closed', reason);
  }

  /** See RingcastClient.ack. */
  ack(id: number) {
    if (this.ackedId === null || id > this.ackedId) {
      this.ackedId = id;
      if (this.pacedSeen.includes(id)) this.pacedAckedId = id;
      this.sendAck();
      return;
    }
    const pacedAndNew = this.pacedSeen.includes(id) && id > (this.pacedAckedId ?? 0);
    if (pacedAndNew && this.conn && this.opened && this.transport === 'ws') {
      this.send({ type: 'ack', id });
      this.pacedAckedId = id;
    }
  }

  /** `channels` changed: tell the server (WebSocket) or reconnect with the new list. */
  channelsChanged(frame: ClientFrame) {
    if (!this.conn) return; // waiting to reconnect: the next attempt carries the new list
    if (this.opened && this.transport === 'ws') {
      this.send(frame);
    } else {
      // SSE and long-poll take channels only in the URL: reconnect with the new list (`since`
      // keeps the stream whole). A WebSocket still connecting is restarted the same way.
      this.restart('subscribe', 0);
    }
  }

  /** The URL of a transport endpoint with this connection's identity and resume point. */
  urlFor(transport: Transport) {
    const url = new URL(transport, this.config.base);
    if (transport === 'ws') url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('user', this.config.user);
    url.searchParams.set('sid', this.config.sid);
    if (this.lastId !== null) url.searchParams.set('since', String(this.lastId));
    else if (this.config.rewind !== undefined) url.searchParams.set('rewind', String(this.config.rewind));
    if (this.channels.size > 0) url.searchParams.set('channels', [...this.channels].join(','));
    if (this.token) url.searchParams.set('token', this.token);
    return url.href;
  }

  /**
   * Take the server's last id as the resume point unless we already have a later one. Only safe
   * once everything up to that id that was addressed to us has arrived (a long-poll reply).
   */
  adoptLastId(id: unknown) {
    if (typeof id === 'number' && (this.lastId === null || id > this.lastId)) this.lastId = id;
  }

  // ---- internals ----

  private send(frame: ClientFrame) {
    this.conn?.send?.(frame);
  }

  private sendAck() {
    if (this.ackedId === null || this.ackSent === this.ackedId || this.ackTimer) return;
    if (!this.conn || !this.opened || this.transport !== 'ws') return;
    const wait = this.ackSentAt + ACK_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.ackTimer = setTimeout(() => {
        this.ackTimer = null;
        this.sendAck();
      }, wait);
      return;
    }
    this.send({ type: 'ack', id: this.ackedId });
    this.ackSent = this.ackedId;
    this.ackSentAt = performance.now();
  }

  private setStatus(state: ClientState, reason: string | null, extra?: { retryInMs: number }) {
    this.state = state;
    this.sink.status({ state, transport: this.transport, reason, ...extra });
  }

  private attempt(state: ClientState, reason: string | null) {
    this.transport = this.config.order[this.index]!;
    this.opened = false;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    const h: Handlers = {
      open: () => { if (current()) this.markOpen(); },
      envelope: (env) => { if (current()) this.handleEnvelope(env); },
      drop: (why) => { if (current()) this.handleDrop(why); },
    };
    this.setStatus(state, reason);
    this.openTimer = setTimeout(h.drop, this.config.openTimeoutMs, 'open_timeout');
    const opener = OPENERS[this.transport];
    const { getToken } = this.config;
    if (!getToken) {
      this.conn = opener(this, h);
      return;
    }
    // A token that cannot be had is no reason to give up on this transport: try again later.
    Promise.resolve()
      .then(getToken)
      .then(
        (token) => {
          if (!current()) return;
          this.token = token;
          this.conn = opener(this, h);
        },
        () => {
          if (!current()) return;
          this.disposeConnection();
          this.scheduleAttempt(state, 'token', this.backoff());
        },
      );
  }

  private disposeConnection() {
    this.generation++;
    clearTimeout(this.openTimer);
    clearTimeout(this.retryTimer ?? undefined);
    clearTimeout(this.ackTimer ?? undefined);
    this.retryTimer = this.ackTimer = null;
    this.conn?.dispose();
    this.conn = null;
  }

  private markOpen() {
    if (this.opened) return;
    clearTimeout(this.openTimer);
    this.opened = true;
    this.everOpened = true;
    this.failures = 0;
    this.setStatus('open', null);
    this.sendAck();
  }

  private handleEnvelope(env: ServerEnvelope) {
    switch (env.type) {
      case 'hello':
        this.session = env;
        // Without `since`, the stream starts at the server's last id: resume from there later.
        // With it, the resumed messages follow hello and must not be mistaken for repeats.
        // Without it, the promotions in force follow hello, with ids up to last_id.
        this.backlogUntil = this.lastId === null ? env.last_id : null;
        this.backlogSeen.clear();
        if (this.lastId === null) this.adoptLastId(env.last_id);
        this.markOpen();
        if (env.gap) this.sink.gap({ transport: this.transport, lastId: this.lastId });
        break;
      case 'message':
        this.deliver(env);
        break;
      case 'messages': // one long-poll reply
        this.markOpen();
        if (env.gap) this.sink.gap({ transport: this.transport, lastId: this.lastId });
        for (const item of env.messages || []) {
          if (item.type === 'expired') this.expire(item.id);
          else this.deliver(item);
        }
        this.adoptLastId(env.last_id);
        break;
      case 'reconnect':
        if (this.lastId === null) this.adoptLastId(env.last_id);
        // A held poll answered `replaced` means another poll of this session took over.
        if (this.transport === 'poll' && env.reason === 'replaced') this.stop('replaced');
        else this.restart(env.reason || 'reconnect', env.retry_ms ?? this.backoff());
        break;
      case 'close':
        if (FINAL_CLOSE_REASONS.has(env.reason)) this.stop(env.reason);
        // The token ran out, nothing else is wrong: come back at once with a new one.
        else if (env.reason === 'expired' && this.config.getToken) this.restart('expired', 0);
        else this.restart(env.reason || 'close', this.backoff());
        break;
      case 'expired':
        this.expire(env.id);
        break;
      case 'error':
        this.sink.error(env);
        break;
      default: // pong, and anything a newer server may add
        break;
    }
  }

  // A promotion passed its ttl: the page takes it down. The server tells the live clients it
  // sent the promotion to (one that came back without `since` too: an id the page never showed
  // is simply not found there).
  private expire(id: unknown) {
    if (typeof id === 'number') this.sink.expired(id);
  }

  private deliver(message: RingcastMessage) {
    if (typeof message.id !== 'number') return;
    // A paced message ("spread_ms") may come after higher ids, at this client's turn: it is new
    // unless this very id was seen (the last few are kept), and the resume point stays at the
    // highest id (docs/protocol.md, "Paced publish").
    if (typeof message.spread_ms === 'number') {
      if (this.pacedSeen.includes(message.id)) return;
      this.pacedSeen.push(message.id);
      if (this.pacedSeen.length > PACED_REMEMBERED) this.pacedSeen.shift();
    } else if (this.backlogUntil !== null && message.id <= this.backlogUntil) {
      if (this.backlogSeen.has(message.id)) return; // in force, sent after the first hello
      this.backlogSeen.add(message.id);
    } else if (this.lastId !== null && message.id <= this.lastId) {
      return; // already seen
    }
    if (this.lastId === null || message.id > this.lastId) this.lastId = message.id;
    this.sink.message(message);
  }

  private handleDrop(reason: string) {
    if (this.opened) {
      this.restart(reason, this.backoff());
      return;
    }
    // Failed before open: this transport is unavailable; fall back to the next one at once.
    this.disposeConnection();
    const state = this.everOpened ? 'reconnecting' : 'connecting';
    if (this.index + 1 < this.config.order.length) {
      this.index++;
      this.attempt(state, reason);
      return;
    }
    // Every transport failed: wait, then start again from the preferred one.
    this.index = 0;
    this.scheduleAttempt(state, reason, this.backoff());
  }

  /** Drop the current connection and reconnect on the same transport after `delayMs`. */
  private restart(reason: string, delayMs: number) {
    this.disposeConnection();
    this.scheduleAttempt('reconnecting', reason, delayMs);
  }

  private scheduleAttempt(state: ClientState, reason: string | null, delayMs: number) {
    if (delayMs <= 0) {
      this.attempt(state, reason);
      return;
    }
    this.setStatus(state, reason, { retryInMs: delayMs });
    this.retryTimer = setTimeout(() => this.attempt(state, reason), delayMs);
  }

  /** Full-jitter exponential back-off: a uniform wait in [cap/2, cap), cap doubling per failure. */
  private backoff() {
    const { backoffMinMs, backoffMaxMs } = this.config;
    const cap = Math.min(backoffMaxMs, backoffMinMs * 2 ** this.failures++);
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }
}
