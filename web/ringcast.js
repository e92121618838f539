// ringcast.js — browser client for the ringcast push server (see docs/client.md).
//
// A classic script: `<script src="/ringcast.js">` defines `window.RingcastClient`.
// ES module users import `/ringcast.mjs`, which re-exports the same class, so there is one
// implementation and no build step.
//
// Transports: WebSocket, then Server-Sent Events, then long-poll. A transport that fails before
// it is open (before `hello`; for long-poll, before its first reply or a short grace period) makes
// the client try the next one. The client owns every reconnect itself — it never lets
// EventSource auto-reconnect — so that each new connection carries `since=<last id>` and nothing
// published in between is lost; ids strictly increase, so de-duplication is one comparison.
//
// Client tokens: a server started with --client-secret or --client-public-key wants a JWT on every
// connect. Give `getToken` (async, returns the JWT): it is called before every connection attempt,
// so a `close`/`expired` (the token ran out) reconnects at once with a fresh token and `since`.
(function (global) {
  'use strict';

  const TRANSPORTS = ['ws', 'sse', 'poll'];
  // Close reasons after which reconnecting would only fight the server or another tab.
  const FINAL_CLOSE_REASONS = new Set(['kicked', 'replaced']);
  const NAME_PATTERN = /^[A-Za-z0-9_.:@-]{1,64}$/;
  const MAX_CHANNELS = 32;
  // A held long-poll gives no sign of life until something is published; if it has not failed
  // within this time the server has accepted it (a refusal would have come back at once).
  const POLL_GRACE_MS = 1000;
  // Acks are cumulative: one every this long at most carries the newest, so a burst of messages
  // (a resume's backlog) costs a few frames, far below the server's --client-message-rate.
  const ACK_INTERVAL_MS = 100;

  const DEFAULTS = {
    url: undefined, // base http(s) URL of the server; default: this page's origin
    sid: '0',
    channels: [],
    transport: 'auto', // 'auto' | 'ws' | 'sse' | 'poll'
    since: undefined, // resume after this id; default: start from "now"
    // On the first connect (without `since`) also replay recent messages: a count (1-100) or a
    // duration string ('30s', '2m'); later connects resume with `since` (docs/protocol.md, "Rewind").
    rewind: undefined,
    pingIntervalMs: 20000, // WebSocket {"type":"ping"}; shortened to half the server's idle timeout
    pongTimeoutMs: 10000, // no reply to a ping within this time: the socket is dead, reconnect
    openTimeoutMs: 10000, // a transport that is not open by then counts as failed
    backoffMinMs: 500,
    backoffMaxMs: 30000,
    getToken: undefined, // async () => JWT, sent as `token=`; called before every connect
    // A server on another origin gets this page's cookies for it over SSE and long-poll too (as
    // EventSource names it); a WebSocket always sends them. The server must list this page's
    // origin in --allowed-origins (docs/client.md, "A server on another origin").
    withCredentials: false,
  };

  function checkName(kind, value) {
    if (typeof value !== 'string' || !NAME_PATTERN.test(value)) {
      throw new TypeError(`RingcastClient: invalid ${kind} ${JSON.stringify(value)}`);
    }
    return value;
  }

  function parseEnvelope(text) {
    try {
      const env = JSON.parse(text);
      return env && typeof env === 'object' ? env : null;
    } catch {
      return null; // not ours to interpret; a broken frame must not kill the connection
    }
  }

  const sleep = (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });

  // Each opener starts one connection attempt and reports through `h`:
  //   h.open()          the transport works (idempotent)
  //   h.envelope(env)   a server envelope arrived
  //   h.drop(reason)    the connection is gone
  // and returns { dispose(), send?(obj) }. After dispose() the client ignores any late report.

  function openWebSocket(client, h) {
    const ws = new WebSocket(client.urlFor('ws'));
    let pingTimer = null;
    let pongTimer = null;

    const startHeartbeat = (hello) => {
      const idleMs = (hello.idle_timeout_s || Infinity) * 1000;
      const interval = Math.min(client.options.pingIntervalMs, idleMs / 2);
      pingTimer = setInterval(() => {
        ws.send('{"type":"ping"}');
        pongTimer ??= setTimeout(() => h.drop('ping_timeout'), client.options.pongTimeoutMs);
      }, interval);
    };

    ws.onmessage = (event) => {
      // Any frame proves the socket alive, not only the pong.
      clearTimeout(pongTimer);
      pongTimer = null;
      const env = parseEnvelope(event.data);
      if (!env) return;
      if (env.type === 'hello' && pingTimer === null) startHeartbeat(env);
      h.envelope(env);
    };
    ws.onclose = (event) => h.drop(event.code === 1009 ? 'too_large' : 'network');

    return {
      send(obj) {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
      },
      dispose() {
        clearInterval(pingTimer);
        clearTimeout(pongTimer);
        ws.onmessage = ws.onclose = null;
        ws.close(1000);
      },
    };
  }

  function openEventSource(client, h) {
    const es = new EventSource(client.urlFor('sse'), {
      withCredentials: client.options.withCredentials,
    });
    const onEnvelope = (event) => {
      const env = parseEnvelope(event.data);
      if (env) h.envelope(env);
    };
    // The envelope carries its own `type`, so every named event goes through one handler.
    for (const name of ['hello', 'message', 'expired', 'reconnect', 'close', 'pong']) {
      es.addEventListener(name, onEnvelope);
    }
    // `error` is both a server event (it has data) and EventSource's own failure signal (no data).
    // On a failure we close at once: EventSource's auto-reconnect would resume with its own idea
    // of the last id and channels, and without our back-off.
    es.addEventListener('error', (event) => {
      if (event.data) onEnvelope(event);
      else h.drop('network');
    });
    return { dispose: () => es.close() };
  }

  function openLongPoll(client, h) {
    const abort = new AbortController();
    const grace = setTimeout(h.open, POLL_GRACE_MS);

    (async () => {
      while (!abort.signal.aborted) {
        let response;
        let body;
        try {
          response = await fetch(client.urlFor('poll'), {
            signal: abort.signal,
            cache: 'no-store',
            credentials: client.options.withCredentials ? 'include' : 'same-origin',
          });
          body = await response.json();
        } catch {
          if (!abort.signal.aborted) h.drop('network');
          return;
        }
        if (!response.ok) {
          h.drop(body?.error || `http_${response.status}`);
          return;
        }
        h.open();
        if (body.type === 'reconnect' && body.reason === 'timeout') {
          // The normal end of a quiet poll, not a disconnection: poll again, quietly.
          client.adoptLastId(body.last_id);
          await sleep(body.retry_ms || 0, abort.signal);
          continue;
        }
        h.envelope(body);
        if (body.type !== 'messages') return; // reconnect/close: the client decides what is next
        // A `messages` reply is followed at once by the next poll, from its last_id: with
        // `"more": true` that fetches the rest of what the server owes (docs/protocol.md).
      }
    })();

    return {
      dispose() {
        clearTimeout(grace);
        abort.abort();
      },
    };
  }

  const OPENERS = { ws: openWebSocket, sse: openEventSource, poll: openLongPoll };

  class RingcastClient extends EventTarget {
    constructor(options) {
      super();
      this.options = { ...DEFAULTS, ...options };
      const o = this.options;
      this.user = checkName('user', o.user);
      this.sid = checkName('sid', String(o.sid));
      if (o.transport !== 'auto' && !TRANSPORTS.includes(o.transport)) {
        throw new TypeError(`RingcastClient: unknown transport ${JSON.stringify(o.transport)}`);
      }
      this.channels = new Set();
      this.addChannels(o.channels);
      this.base = new URL(o.url ?? global.location.origin + '/');
      this.order = o.transport === 'auto' ? TRANSPORTS : [o.transport];
      this.lastId = o.since ?? null;
      // After a hello without `since`, the server first sends the promotions in force (and what
      // `rewind` asked for): ids up to hello's last_id that are new to this page, not repeats.
      this.backlogUntil = null;
      this.backlogSeen = new Set();
      this.ackedId = null; // the newest id the page showed (ack())
      this.ackSent = null; // the newest ack written to a WebSocket
      this.ackSentAt = -Infinity; // when (performance.now()), for ACK_INTERVAL_MS
      this.ackTimer = null; // a later sendAck, while one was written less than the interval ago
      this.pacedAckedId = null; // the newest paced id acked (ack())
      this.pacedSeen = []; // ids of the last paced messages delivered (see deliver)
      this.state = 'idle';
      this.transport = null;
      this.session = null; // the last `hello`
      this.conn = null;
      this.generation = 0; // identifies the current attempt; reports from older ones are ignored
      this.index = 0; // into `order`
      this.opened = false; // the current attempt reached `open`
      this.everOpened = false;
      this.failures = 0; // consecutive, for the back-off
      this.retryTimer = null;
      this.openTimer = null;
      this.token = null; // from getToken, for the current attempt
    }

    /** Start (or restart after close()). Returns this. */
    connect() {
      if (this.state !== 'idle' && this.state !== 'closed') return this;
      this.index = 0;
      this.failures = 0;
      this.everOpened = false;
      this.attempt('connecting', null);
      return this;
    }

    /** Stop for good: no reconnect until connect() is called again. */
    close() {
      this.stop('client');
    }

    subscribe(...channels) {
      const added = channels.flat().filter((c) => !this.channels.has(checkName('channel', c)));
      if (added.length === 0) return;
      this.addChannels(added);
      this.channelsChanged({ type: 'subscribe', channels: added });
    }

    unsubscribe(...channels) {
      const removed = channels.flat().filter((c) => this.channels.delete(c));
      if (removed.length === 0) return;
      this.channelsChanged({ type: 'unsubscribe', channels: removed });
    }

    /**
     * Tells the server the page showed message `id` (it counts in the message's reach). Acks are
     * cumulative and only a WebSocket can carry them: over SSE or long-poll the newest id waits
     * and goes out when a WebSocket is open again. A paced message may come after higher ids
     * already acked: its older id is acked on its own if a WebSocket is open (the server counts
     * paced acks once each, in id order; docs/protocol.md).
     */
    ack(id) {
      if (typeof id !== 'number') return;
      if (this.ackedId === null || id > this.ackedId) {
        this.ackedId = id;
        if (this.pacedSeen.includes(id)) this.pacedAckedId = id;
        this.sendAck();
        return;
      }
      const pacedAndNew = this.pacedSeen.includes(id) && id > (this.pacedAckedId ?? 0);
      if (pacedAndNew && this.conn && this.opened && this.transport === 'ws') {
        this.conn.send({ type: 'ack', id });
        this.pacedAckedId = id;
      }
    }

    sendAck() {
      if (this.ackedId === null || this.ackSent === this.ackedId || this.ackTimer) return;
      if (!this.conn || !this.opened || this.transport !== 'ws') return;
      const wait = this.ackSentAt + ACK_INTERVAL_MS - global.performance.now();
      if (wait > 0) {
        this.ackTimer = setTimeout(() => {
          this.ackTimer = null;
          this.sendAck();
        }, wait);
        return;
      }
      this.conn.send({ type: 'ack', id: this.ackedId });
      this.ackSent = this.ackedId;
      this.ackSentAt = global.performance.now();
    }

    /** Sugar for addEventListener that hands the listener `event.detail`. Returns an unsubscriber. */
    on(type, listener) {
      const wrapped = (event) => listener(event.detail);
      this.addEventListener(type, wrapped);
      return () => this.removeEventListener(type, wrapped);
    }

    /** The URL of a transport endpoint with this client's identity and resume point. */
    urlFor(transport) {
      const url = new URL(transport, this.base);
      if (transport === 'ws') url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('user', this.user);
      url.searchParams.set('sid', this.sid);
      if (this.lastId !== null) url.searchParams.set('since', String(this.lastId));
      else if (this.options.rewind !== undefined) url.searchParams.set('rewind', String(this.options.rewind));
      if (this.channels.size > 0) url.searchParams.set('channels', [...this.channels].join(','));
      if (this.token) url.searchParams.set('token', this.token);
      return url.href;
    }

    /**
     * Take the server's last id as the resume point unless we already have a later one. Only safe
     * once everything up to that id that was addressed to us has arrived (a long-poll reply).
     */
    adoptLastId(id) {
      if (typeof id === 'number' && (this.lastId === null || id > this.lastId)) this.lastId = id;
    }

    // ---- internals ----

    addChannels(channels) {
      const names = channels.map((c) => checkName('channel', c));
      // Checked before adding, so a refused call leaves the subscription as it was.
      if (new Set([...this.channels, ...names]).size > MAX_CHANNELS) {
        throw new RangeError(`RingcastClient: at most ${MAX_CHANNELS} channels`);
      }
      for (const c of names) this.channels.add(c);
    }

    channelsChanged(wsMessage) {
      if (!this.conn) return; // waiting to reconnect: the next attempt carries the new list
      if (this.opened && this.transport === 'ws') {
        this.conn.send(wsMessage);
      } else {
        // SSE and long-poll take channels only in the URL: reconnect with the new list (`since`
        // keeps the stream whole). A WebSocket still connecting is restarted the same way.
        this.restart('subscribe', 0);
      }
    }

    emit(type, detail) {
      this.dispatchEvent(new CustomEvent(type, { detail }));
    }

    setStatus(state, reason, extra) {
      this.state = state;
      this.emit('status', { state, transport: this.transport, reason: reason ?? null, ...extra });
    }

    attempt(state, reason) {
      this.transport = this.order[this.index];
      this.opened = false;
      const generation = ++this.generation;
      const current = () => generation === this.generation;
      const h = {
        open: () => current() && this.markOpen(),
        envelope: (env) => current() && this.handleEnvelope(env),
        drop: (why) => current() && this.handleDrop(why),
      };
      this.setStatus(state, reason);
      this.openTimer = setTimeout(h.drop, this.options.openTimeoutMs, 'open_timeout');
      const { getToken } = this.options;
      if (!getToken) {
        this.conn = OPENERS[this.transport](this, h);
        return;
      }
      // A token that cannot be had is no reason to give up on this transport: try again later.
      Promise.resolve()
        .then(getToken)
        .then(
          (token) => {
            if (!current()) return;
            this.token = token;
            this.conn = OPENERS[this.transport](this, h);
          },
          () => {
            if (!current()) return;
            this.disposeConnection();
            this.scheduleAttempt(state, 'token', this.backoff());
          },
        );
    }

    disposeConnection() {
      this.generation++;
      clearTimeout(this.openTimer);
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
      this.conn?.dispose();
      this.conn = null;
    }

    markOpen() {
      if (this.opened) return;
      clearTimeout(this.openTimer);
      this.opened = true;
      this.everOpened = true;
      this.failures = 0;
      this.setStatus('open', null);
      this.sendAck();
    }

    handleEnvelope(env) {
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
          if (env.gap) this.emit('gap', { transport: this.transport, lastId: this.lastId });
          break;
        case 'message':
          this.deliver(env);
          break;
        case 'messages': // one long-poll reply
          this.markOpen();
          if (env.gap) this.emit('gap', { transport: this.transport, lastId: this.lastId });
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
          else if (env.reason === 'expired' && this.options.getToken) this.restart('expired', 0);
          else this.restart(env.reason || 'close', this.backoff());
          break;
        case 'expired':
          this.expire(env.id);
          break;
        case 'error':
          this.emit('error', env);
          break;
        default: // pong, and anything a newer server may add
          break;
      }
    }

    // A promotion passed its ttl: the page takes it down. The server tells the live clients it
    // sent the promotion to (one that came back without `since` too: an id the page never showed
    // is simply not found there).
    expire(id) {
      if (typeof id === 'number') this.emit('expired', { id });
    }

    deliver(message) {
      if (typeof message.id !== 'number') return;
      // A paced message ("spread_ms") may come after higher ids, at this client's turn: it is new
      // unless this very id was seen (the last few are kept), and the resume point stays at the
      // highest id (docs/protocol.md, "Paced publish").
      if (typeof message.spread_ms === 'number') {
        if (this.pacedSeen.includes(message.id)) return;
        this.pacedSeen.push(message.id);
        if (this.pacedSeen.length > 64) this.pacedSeen.shift();
      } else if (this.backlogUntil !== null && message.id <= this.backlogUntil) {
        if (this.backlogSeen.has(message.id)) return; // in force, sent after the first hello
        this.backlogSeen.add(message.id);
      } else if (this.lastId !== null && message.id <= this.lastId) {
        return; // already seen
      }
      if (this.lastId === null || message.id > this.lastId) this.lastId = message.id;
      this.emit('message', message);
    }

    handleDrop(reason) {
      if (this.opened) {
        this.restart(reason, this.backoff());
        return;
      }
      // Failed before open: this transport is unavailable; fall back to the next one at once.
      this.disposeConnection();
      const state = this.everOpened ? 'reconnecting' : 'connecting';
      if (this.index + 1 < this.order.length) {
        this.index++;
        this.attempt(state, reason);
        return;
      }
      // Every transport failed: wait, then start again from the preferred one.
      this.index = 0;
      this.scheduleAttempt(state, reason, this.backoff());
    }

    /** Drop the current connection and reconnect on the same transport after `delayMs`. */
    restart(reason, delayMs) {
      this.disposeConnection();
      this.scheduleAttempt('reconnecting', reason, delayMs);
    }

    scheduleAttempt(state, reason, delayMs) {
      if (delayMs <= 0) {
        this.attempt(state, reason);
        return;
      }
      this.setStatus(state, reason, { retryInMs: delayMs });
      this.retryTimer = setTimeout(() => this.attempt(state, reason), delayMs);
    }

    stop(reason) {
      this.disposeConnection();
      this.setStatus('closed', reason);
    }

    /** Full-jitter exponential back-off: a uniform wait in [cap/2, cap), cap doubling per failure. */
    backoff() {
      const { backoffMinMs, backoffMaxMs } = this.options;
      const cap = Math.min(backoffMaxMs, backoffMinMs * 2 ** this.failures++);
      return Math.round(cap / 2 + (Math.random() * cap) / 2);
    }
  }

  global.RingcastClient = RingcastClient;
})(globalThis);
