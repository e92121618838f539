// Built from clients/js/src by clients/js/build.mjs (ringcast-client 0.1.0): do not edit, edit the package. See docs/client.md.
"use strict";
(() => {
  // src/transports.ts
  var unavailable = (h, reason) => (queueMicrotask(() => h.drop(reason)), { dispose() {
  } });
  function parseEnvelope(text) {
    try {
      let env = JSON.parse(String(text));
      return env && typeof env == "object" ? env : null;
    } catch {
      return null;
    }
  }
  var credentials = (c) => c.withCredentials ? "include" : "same-origin", sleep = (ms, signal) => new Promise((resolve) => {
    let timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer), resolve();
    }, { once: !0 });
  });
  function openWebSocket(c, h) {
    if (!c.WebSocket) return unavailable(h, "no_websocket");
    let ws = new c.WebSocket(c.urlFor("ws")), pingTimer, pongTimer, startHeartbeat = (hello) => {
      let idleMs = (hello.idle_timeout_s || 1 / 0) * 1e3, interval = Math.min(c.pingIntervalMs, idleMs / 2);
      pingTimer = setInterval(() => {
        ws.send('{"type":"ping"}'), pongTimer ??= setTimeout(() => h.drop("ping_timeout"), c.pongTimeoutMs);
      }, interval);
    };
    return ws.onmessage = (event) => {
      clearTimeout(pongTimer), pongTimer = void 0;
      let env = parseEnvelope(event.data);
      env && (env.type === "hello" && pingTimer === void 0 && startHeartbeat(env), h.envelope(env));
    }, ws.onclose = (event) => h.drop(event.code === 1009 ? "too_large" : "network"), {
      send(frame) {
        ws.readyState === 1 && ws.send(JSON.stringify(frame));
      },
      dispose() {
        clearInterval(pingTimer), clearTimeout(pongTimer), ws.onmessage = ws.onclose = null, ws.close(1e3);
      }
    };
  }
  function openEventSource(c, h) {
    if (typeof EventSource > "u")
      return unavailable(h, "no_eventsource");
    let es = new EventSource(c.urlFor("sse"), { withCredentials: c.withCredentials }), onEnvelope = (event) => {
      let env = parseEnvelope(event.data);
      env && h.envelope(env);
    };
    for (let name of ["hello", "message", "expired", "reconnect", "close", "pong"])
      es.addEventListener(name, onEnvelope);
    return es.addEventListener("error", (event) => {
      event.data ? onEnvelope(event) : h.drop("network");
    }), { dispose: () => es.close() };
  }
  function openLongPoll(c, h) {
    let abort = new AbortController(), grace = setTimeout(h.open, 1e3);
    return (async () => {
      for (; !abort.signal.aborted; ) {
        let response, body;
        try {
          response = await c.fetch(c.urlFor("poll"), {
            signal: abort.signal,
            cache: "no-store",
            credentials: credentials(c)
          }), body = await response.json();
        } catch {
          abort.signal.aborted || h.drop("network");
          return;
        }
        if (!response.ok) {
          h.drop(body?.error || `http_${response.status}`);
          return;
        }
        if (h.open(), body.type === "reconnect" && body.reason === "timeout") {
          c.adoptLastId(body.last_id), await sleep(body.retry_ms || 0, abort.signal);
          continue;
        }
        if (h.envelope(body), body.type !== "messages") return;
      }
    })(), {
      dispose() {
        clearTimeout(grace), abort.abort();
      }
    };
  }
  var OPENERS = { ws: openWebSocket, sse: openEventSource, poll: openLongPoll };

  // src/connection.ts
  var FINAL_CLOSE_REASONS = /* @__PURE__ */ new Set(["kicked", "replaced"]), ACK_INTERVAL_MS = 100, PACED_REMEMBERED = 64, Connection = class {
    // from getToken, for the current attempt
    constructor(config, channels, sink) {
      this.config = config;
      this.channels = channels;
      this.sink = sink;
      this.state = "idle";
      this.transport = null;
      this.session = null;
      // After a hello without `since`, the server first sends the promotions in force (and what
      // `rewind` asked for): ids up to hello's last_id that are new to this page, not repeats.
      this.backlogUntil = null;
      this.backlogSeen = /* @__PURE__ */ new Set();
      this.ackedId = null;
      // the newest id the page showed (ack())
      this.ackSent = null;
      // the newest ack written to a WebSocket
      this.ackSentAt = -1 / 0;
      // when (performance.now()), for ACK_INTERVAL_MS
      this.ackTimer = null;
      this.pacedAckedId = null;
      // the newest paced id acked (ack())
      this.pacedSeen = [];
      // ids of the last paced messages delivered (see deliver)
      this.conn = null;
      this.generation = 0;
      // identifies the current attempt; reports from older ones are ignored
      this.index = 0;
      // into `order`
      this.opened = !1;
      // the current attempt reached `open`
      this.everOpened = !1;
      this.failures = 0;
      // consecutive, for the back-off
      this.retryTimer = null;
      this.token = null;
      this.lastId = config.since;
    }
    get pingIntervalMs() {
      return this.config.pingIntervalMs;
    }
    get pongTimeoutMs() {
      return this.config.pongTimeoutMs;
    }
    get WebSocket() {
      return this.config.WebSocket;
    }
    get fetch() {
      return this.config.fetch;
    }
    get withCredentials() {
      return this.config.withCredentials;
    }
    /** Starts (or restarts after stop()); `state` is what the first status says. */
    start(state = "connecting", reason = null) {
      this.state !== "idle" && this.state !== "closed" || (this.index = 0, this.failures = 0, this.everOpened = !1, this.attempt(state, reason));
    }
    stop(reason = "client") {
      this.disposeConnection(), this.setStatus("closed", reason);
    }
    /** See RingcastClient.ack. */
    ack(id) {
      if (this.ackedId === null || id > this.ackedId) {
        this.ackedId = id, this.pacedSeen.includes(id) && (this.pacedAckedId = id), this.sendAck();
        return;
      }
      this.pacedSeen.includes(id) && id > (this.pacedAckedId ?? 0) && this.conn && this.opened && this.transport === "ws" && (this.send({ type: "ack", id }), this.pacedAckedId = id);
    }
    /** `channels` changed: tell the server (WebSocket) or reconnect with the new list. */
    channelsChanged(frame) {
      this.conn && (this.opened && this.transport === "ws" ? this.send(frame) : this.restart("subscribe", 0));
    }
    /** The URL of a transport endpoint with this connection's identity and resume point. */
    urlFor(transport) {
      let url = new URL(transport, this.config.base);
      return transport === "ws" && (url.protocol = url.protocol === "https:" ? "wss:" : "ws:"), url.searchParams.set("user", this.config.user), url.searchParams.set("sid", this.config.sid), this.lastId !== null ? url.searchParams.set("since", String(this.lastId)) : this.config.rewind !== void 0 && url.searchParams.set("rewind", String(this.config.rewind)), this.channels.size > 0 && url.searchParams.set("channels", [...this.channels].join(",")), this.token && url.searchParams.set("token", this.token), url.href;
    }
    /**
     * Take the server's last id as the resume point unless we already have a later one. Only safe
     * once everything up to that id that was addressed to us has arrived (a long-poll reply).
     */
    adoptLastId(id) {
      typeof id == "number" && (this.lastId === null || id > this.lastId) && (this.lastId = id);
    }
    // ---- internals ----
    send(frame) {
      this.conn?.send?.(frame);
    }
    sendAck() {
      if (this.ackedId === null || this.ackSent === this.ackedId || this.ackTimer || !this.conn || !this.opened || this.transport !== "ws") return;
      let wait = this.ackSentAt + ACK_INTERVAL_MS - performance.now();
      if (wait > 0) {
        this.ackTimer = setTimeout(() => {
          this.ackTimer = null, this.sendAck();
        }, wait);
        return;
      }
      this.send({ type: "ack", id: this.ackedId }), this.ackSent = this.ackedId, this.ackSentAt = performance.now();
    }
    setStatus(state, reason, extra) {
      this.state = state, this.sink.status({ state, transport: this.transport, reason, ...extra });
    }
    attempt(state, reason) {
      this.transport = this.config.order[this.index], this.opened = !1;
      let generation = ++this.generation, current = () => generation === this.generation, h = {
        open: () => {
          current() && this.markOpen();
        },
        envelope: (env) => {
          current() && this.handleEnvelope(env);
        },
        drop: (why) => {
          current() && this.handleDrop(why);
        }
      };
      this.setStatus(state, reason), this.openTimer = setTimeout(h.drop, this.config.openTimeoutMs, "open_timeout");
      let opener = OPENERS[this.transport], { getToken } = this.config;
      if (!getToken) {
        this.conn = opener(this, h);
        return;
      }
      Promise.resolve().then(getToken).then(
        (token) => {
          current() && (this.token = token, this.conn = opener(this, h));
        },
        () => {
          current() && (this.disposeConnection(), this.scheduleAttempt(state, "token", this.backoff()));
        }
      );
    }
    disposeConnection() {
      this.generation++, clearTimeout(this.openTimer), clearTimeout(this.retryTimer ?? void 0), clearTimeout(this.ackTimer ?? void 0), this.retryTimer = this.ackTimer = null, this.conn?.dispose(), this.conn = null;
    }
    markOpen() {
      this.opened || (clearTimeout(this.openTimer), this.opened = !0, this.everOpened = !0, this.failures = 0, this.setStatus("open", null), this.sendAck());
    }
    handleEnvelope(env) {
      switch (env.type) {
        case "hello":
          this.session = env, this.backlogUntil = this.lastId === null ? env.last_id : null, this.backlogSeen.clear(), this.lastId === null && this.adoptLastId(env.last_id), this.markOpen(), env.gap && this.sink.gap({ transport: this.transport, lastId: this.lastId });
          break;
        case "message":
          this.deliver(env);
          break;
        case "messages":
          this.markOpen(), env.gap && this.sink.gap({ transport: this.transport, lastId: this.lastId });
          for (let item of env.messages || [])
            item.type === "expired" ? this.expire(item.id) : this.deliver(item);
          this.adoptLastId(env.last_id);
          break;
        case "reconnect":
          this.lastId === null && this.adoptLastId(env.last_id), this.transport === "poll" && env.reason === "replaced" ? this.stop("replaced") : this.restart(env.reason || "reconnect", env.retry_ms ?? this.backoff());
          break;
        case "close":
          FINAL_CLOSE_REASONS.has(env.reason) ? this.stop(env.reason) : env.reason === "expired" && this.config.getToken ? this.restart("expired", 0) : this.restart(env.reason || "close", this.backoff());
          break;
        case "expired":
          this.expire(env.id);
          break;
        case "error":
          this.sink.error(env);
          break;
        default:
          break;
      }
    }
    // A promotion passed its ttl: the page takes it down. The server tells the live clients it
    // sent the promotion to (one that came back without `since` too: an id the page never showed
    // is simply not found there).
    expire(id) {
      typeof id == "number" && this.sink.expired(id);
    }
    deliver(message) {
      if (typeof message.id == "number") {
        if (typeof message.spread_ms == "number") {
          if (this.pacedSeen.includes(message.id)) return;
          this.pacedSeen.push(message.id), this.pacedSeen.length > PACED_REMEMBERED && this.pacedSeen.shift();
        } else if (this.backlogUntil !== null && message.id <= this.backlogUntil) {
          if (this.backlogSeen.has(message.id)) return;
          this.backlogSeen.add(message.id);
        } else if (this.lastId !== null && message.id <= this.lastId)
          return;
        (this.lastId === null || message.id > this.lastId) && (this.lastId = message.id), this.sink.message(message);
      }
    }
    handleDrop(reason) {
      if (this.opened) {
        this.restart(reason, this.backoff());
        return;
      }
      this.disposeConnection();
      let state = this.everOpened ? "reconnecting" : "connecting";
      if (this.index + 1 < this.config.order.length) {
        this.index++, this.attempt(state, reason);
        return;
      }
      this.index = 0, this.scheduleAttempt(state, reason, this.backoff());
    }
    /** Drop the current connection and reconnect on the same transport after `delayMs`. */
    restart(reason, delayMs) {
      this.disposeConnection(), this.scheduleAttempt("reconnecting", reason, delayMs);
    }
    scheduleAttempt(state, reason, delayMs) {
      if (delayMs <= 0) {
        this.attempt(state, reason);
        return;
      }
      this.setStatus(state, reason, { retryInMs: delayMs }), this.retryTimer = setTimeout(() => this.attempt(state, reason), delayMs);
    }
    /** Full-jitter exponential back-off: a uniform wait in [cap/2, cap), cap doubling per failure. */
    backoff() {
      let { backoffMinMs, backoffMaxMs } = this.config, cap = Math.min(backoffMaxMs, backoffMinMs * 2 ** this.failures++);
      return Math.round(cap / 2 + Math.random() * cap / 2);
    }
  };

  // src/shared.ts
  var BEAT_MS = 500, LEADER_LOST_MS = 1500, IN_FORCE_KEPT = 100, MAX_CHANNELS = 32, RECENT_IDS = 1024;
  function canShare() {
    return typeof document < "u" && typeof BroadcastChannel < "u";
  }
  var TabGroup = class {
    constructor(config, channels, tabSink) {
      this.config = config;
      this.channels = channels;
      this.tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
      this.bus = null;
      this.members = /* @__PURE__ */ new Map();
      // where the group's stream resumes
      this.acked = null;
      // the newest id any tab acked
      this.lastStatus = null;
      this.session = null;
      this.inForce = /* @__PURE__ */ new Map();
      // for tabs that join later
      this.connection = null;
      // while leading
      this.resign = null;
      // ends the lead (releases the lock)
      this.lockRequest = null;
      this.lastBeat = 0;
      this.overflow = "";
      // the channels last left out of the union (union())
      this.onPageHide = () => this.stop();
      this.onPageShow = (event) => {
        event.persisted && this.start();
      };
      // this tab's client
      this.recent = /* @__PURE__ */ new Set();
      this.sink = {
        ...tabSink,
        message: (message) => {
          let { channel, id } = message;
          !(channel === "*" || channel === "users" || channel.startsWith("user:") || this.channels.has(channel)) || this.recent.has(id) || (this.recent.add(id), this.recent.size > RECENT_IDS && this.recent.delete(this.recent.values().next().value), tabSink.message(message));
        }
      };
      let { base, user, order, getToken, withCredentials } = config, key = [base.href, user, order.join(), !!getToken, withCredentials];
      this.name = `ringcast:${JSON.stringify(key)}`, this.sid = config.sid, this.cursor = config.since;
    }
    get lastId() {
      return this.connection?.lastId ?? this.cursor;
    }
    start() {
      if (this.bus) {
        this.connection ? this.connection.start() : this.post({ t: "restart" });
        return;
      }
      this.bus = new BroadcastChannel(this.name), this.bus.onmessage = (event) => this.receive(event.data), addEventListener("pagehide", this.onPageHide), addEventListener("pageshow", this.onPageShow), this.sink.status(this.groupStatus("connecting", null)), this.post({ t: "join", channels: [...this.channels] });
      let locks = typeof navigator < "u" ? navigator.locks : void 0;
      locks ? (this.lockRequest = new AbortController(), locks.request(this.name, { signal: this.lockRequest.signal }, () => this.lead()).catch(() => {
      })) : (this.lastBeat = performance.now(), this.beatTimer = setInterval(() => this.watchLeader(), BEAT_MS));
    }
    stop() {
      if (!this.bus) return;
      let wasLeader = this.connection !== null;
      this.endLead(), this.lockRequest?.abort(), this.lockRequest = null, clearInterval(this.beatTimer), this.post({ t: "leave", leader: wasLeader }), this.bus.close(), this.bus = null, removeEventListener("pagehide", this.onPageHide), removeEventListener("pageshow", this.onPageShow), this.sink.status(this.groupStatus("closed", "client")), this.lastStatus = null;
    }
    // This tab's channels changed: the leader brings the group's connection to the new union.
    channelsChanged() {
      this.post({ t: "channels", channels: [...this.channels] }), this.connection && this.applyUnion();
    }
    ack(id) {
      this.noteAck(id), this.connection ? this.connection.ack(id) : this.post({ t: "ack", id });
    }
    // ---- leading ----
    // Called when this tab wins the election; resolves when it stops leading.
    lead() {
      if (!this.bus) return Promise.resolve();
      let current = () => this.connection === connection, leaderSink = {
        message: (message) => {
          if (!current()) return;
          this.cursor = connection.lastId;
          let inForce = this.isInForce(message);
          this.keep(message, inForce), this.post({ t: "message", message, cursor: this.cursor, inForce }), this.sink.message(message);
        },
        expired: (id) => {
          current() && (this.inForce.delete(id), this.post({ t: "expired", id }), this.sink.expired(id));
        },
        status: (status) => {
          current() && (this.cursor = connection.lastId, this.session = connection.session, this.lastStatus = status, this.post({ t: "status", status, session: this.session, cursor: this.cursor }), this.sink.status(status));
        },
        gap: (detail) => {
          current() && (this.post({ t: "gap", detail }), this.sink.gap(detail));
        },
        error: (detail) => {
          current() && (this.post({ t: "error", detail }), this.sink.error(detail));
        }
      }, connection = new Connection(
        { ...this.config, sid: this.sid, since: this.cursor },
        new Set(this.union()),
        leaderSink
      );
      this.connection = connection, this.acked !== null && connection.ack(this.acked), this.broadcastState();
      let tookOver = this.lastStatus !== null;
      return connection.start(tookOver ? "reconnecting" : "connecting", tookOver ? "leader" : null), this.beatTimer !== void 0 && this.post({ t: "beat" }), new Promise((resolve) => {
        this.resign = resolve;
      });
    }
    endLead() {
      let connection = this.connection;
      connection && (this.cursor = connection.lastId, this.connection = null, connection.stop(), this.resign?.(), this.resign = null);
    }
    // Every tab's channels, this tab's first, at most the server's 32 for one connection. The
    // channels left out are announced (`overflow`): their tabs report an error instead of silently
    // missing them.
    union() {
      let all = new Set(this.channels), left = /* @__PURE__ */ new Set();
      for (let channels of this.members.values())
        for (let c of channels)
          all.has(c) || (all.size < MAX_CHANNELS ? all.add(c) : left.add(c));
      let overflow = [...left].sort().join(",");
      return overflow !== this.overflow && (this.overflow = overflow, left.size > 0 && (this.post({ t: "overflow", channels: [...left] }), this.reportOverflow([...left]))), all;
    }
    reportOverflow(channels) {
      let mine = channels.filter((c) => this.channels.has(c));
      mine.length !== 0 && this.sink.error({
        type: "error",
        code: "too_many_channels",
        message: `not subscribed to ${mine.join(", ")}: the connection shared by this browser's tabs holds at most ${MAX_CHANNELS} channels (share: false gives this tab a connection of its own)`
      });
    }
    // The group's channels changed: bring the connection's set to the union.
    applyUnion() {
      let target = this.union(), held = this.connection.channels, added = [...target].filter((c) => !held.has(c)), removed = [...held].filter((c) => !target.has(c));
      for (let c of added) held.add(c);
      for (let c of removed) held.delete(c);
      added.length > 0 && this.connection.channelsChanged({ type: "subscribe", channels: added }), removed.length > 0 && this.connection.channelsChanged({ type: "unsubscribe", channels: removed });
    }
    broadcastState() {
      this.post({
        t: "state",
        members: [...this.members, [this.tab, [...this.channels]]],
        sid: this.sid,
        cursor: this.lastId,
        acked: this.acked,
        status: this.lastStatus,
        session: this.session
      });
    }
    // ---- following ----
    receive(post) {
      let leading = this.connection !== null;
      switch (post.t) {
        case "join":
        case "channels":
          if (this.members.set(post.from, post.channels), !leading) break;
          this.applyUnion(), post.t === "join" && (this.connection.state === "closed" && this.connection.start(), this.broadcastState(), this.post({ t: "welcome", to: post.from, messages: this.messagesInForce() }));
          break;
        case "leave":
          this.members.delete(post.from), leading ? this.applyUnion() : post.leader && this.leaderGone();
          break;
        case "ack":
          this.noteAck(post.id), this.connection?.ack(post.id);
          break;
        case "restart":
          this.connection?.start();
          break;
        case "beat":
          this.lastBeat = performance.now(), leading && post.from < this.tab && this.endLead();
          break;
        case "state":
          this.members = new Map(post.members.filter(([tab]) => tab !== this.tab)), this.sid = post.sid, this.adoptCursor(post.cursor), this.noteAck(post.acked), this.session = post.session, this.lastBeat = performance.now(), post.status && this.followStatus(post.status);
          break;
        case "welcome":
          if (post.to !== this.tab) break;
          for (let message of post.messages) this.keep(message, !0);
          for (let message of post.messages) this.sink.message(message);
          break;
        case "message":
          this.adoptCursor(post.cursor), this.keep(post.message, post.inForce), this.sink.message(post.message);
          break;
        case "expired":
          this.inForce.delete(post.id), this.sink.expired(post.id);
          break;
        case "status":
          this.adoptCursor(post.cursor), this.session = post.session, this.lastBeat = performance.now(), this.followStatus(post.status);
          break;
        case "overflow":
          this.reportOverflow(post.channels);
          break;
        case "gap":
          this.sink.gap(post.detail);
          break;
        case "error":
          this.sink.error(post.detail);
          break;
      }
    }
    // A status of the group's own (no connection's): the transport is the last one the group's
    // connection used, or the first it will try, as a tab's own client says.
    groupStatus(state, reason) {
      return { state, transport: this.lastStatus?.transport ?? this.config.order[0], reason };
    }
    followStatus(status) {
      this.lastStatus = status, this.sink.status(status);
    }
    // The leader left: until the next one's connection reports, the group is reconnecting.
    leaderGone() {
      this.followStatus(this.groupStatus("reconnecting", "leader")), this.beatTimer !== void 0 && [...this.members.keys()].every((tab) => tab > this.tab) && this.lead();
    }
    watchLeader() {
      this.connection ? this.post({ t: "beat" }) : performance.now() - this.lastBeat > LEADER_LOST_MS && this.lead();
    }
    adoptCursor(id) {
      id !== null && (this.cursor === null || id > this.cursor) && (this.cursor = id);
    }
    noteAck(id) {
      id !== null && (this.acked === null || id > this.acked) && (this.acked = id);
    }
    // The group keeps what its connection got as in force (on a connect without `since`) and the
    // promotions whose ttl is still running, for a tab that joins later.
    isInForce(message) {
      let backlogUntil = this.connection?.backlogUntil ?? null;
      return backlogUntil !== null && message.id <= backlogUntil || message.expires !== void 0;
    }
    keep(message, inForce) {
      inForce && (this.inForce.set(message.id, message), this.inForce.size > IN_FORCE_KEPT && this.inForce.delete(this.inForce.keys().next().value));
    }
    messagesInForce() {
      let now = Date.now();
      return [...this.inForce.values()].filter((m) => m.expires === void 0 || m.expires > now).sort((a, b) => a.id - b.id);
    }
    post(post) {
      this.bus?.postMessage({ ...post, from: this.tab });
    }
  };

  // src/client.ts
  var TRANSPORTS = ["ws", "sse", "poll"], NAME_PATTERN = /^[A-Za-z0-9_.:@-]{1,64}$/, MAX_CHANNELS2 = 32, DEFAULTS = {
    sid: "0",
    channels: [],
    transport: "auto",
    pingIntervalMs: 2e4,
    pongTimeoutMs: 1e4,
    openTimeoutMs: 1e4,
    backoffMinMs: 500,
    backoffMaxMs: 3e4,
    share: !0,
    withCredentials: !1
  };
  function checkName(kind, value) {
    if (typeof value != "string" || !NAME_PATTERN.test(value))
      throw new TypeError(`RingcastClient: invalid ${kind} ${JSON.stringify(value)}`);
    return value;
  }
  var RingcastClient = class extends EventTarget {
    constructor(options) {
      super();
      /** This client's channels (with a shared connection, the connection holds every tab's). */
      this.channels = /* @__PURE__ */ new Set();
      this.state = "idle";
      this.transport = null;
      // What the connection reports (with a shared connection, what the tab group passes on).
      this.sink = {
        message: (message) => this.emit("message", message),
        expired: (id) => this.emit("expired", { id }),
        status: (status) => {
          this.state = status.state, this.transport = status.transport, this.emit("status", status);
        },
        gap: (gap) => this.emit("gap", gap),
        error: (error) => this.emit("error", error)
      };
      let o = { ...DEFAULTS, ...options };
      if (this.options = o, this.user = checkName("user", o.user), this.sid = checkName("sid", String(o.sid)), o.transport !== "auto" && !TRANSPORTS.includes(o.transport))
        throw new TypeError(`RingcastClient: unknown transport ${JSON.stringify(o.transport)}`);
      this.addChannels(o.channels);
      let origin = globalThis.location?.origin;
      if (o.url === void 0 && !origin)
        throw new TypeError("RingcastClient: `url` is required where there is no page");
      let fetchImpl = o.fetch ?? globalThis.fetch, config = {
        ...o,
        base: new URL(o.url ?? origin + "/"),
        user: this.user,
        sid: this.sid,
        order: o.transport === "auto" ? TRANSPORTS : [o.transport],
        since: o.since ?? null,
        WebSocket: o.WebSocket ?? globalThis.WebSocket,
        // Called as a function, not as the config's method: a browser's fetch wants `this` unset.
        fetch: (input, init) => fetchImpl(input, init)
      };
      this.shared = o.share && canShare(), this.link = this.shared ? new TabGroup(config, this.channels, this.sink) : new Connection(config, this.channels, this.sink);
    }
    /** The id of the last message of the stream: where a reconnect resumes. */
    get lastId() {
      return this.link.lastId;
    }
    /** The last `hello` of the connection. */
    get session() {
      return this.link.session;
    }
    /** Start (or restart after close()). Returns this. */
    connect() {
      return (this.state === "idle" || this.state === "closed") && this.link.start(), this;
    }
    /** Stop for good: no reconnect until connect() is called again. */
    close() {
      this.state === "idle" || this.state === "closed" || this.link.stop();
    }
    subscribe(...channels) {
      let added = channels.flat().filter((c) => !this.channels.has(checkName("channel", c)));
      added.length !== 0 && (this.addChannels(added), this.link.channelsChanged({ type: "subscribe", channels: added }));
    }
    unsubscribe(...channels) {
      let removed = channels.flat().filter((c) => this.channels.delete(c));
      removed.length !== 0 && this.link.channelsChanged({ type: "unsubscribe", channels: removed });
    }
    /**
     * Tells the server the page showed message `id` (it counts in the message's reach). Acks are
     * cumulative and only a WebSocket can carry them: over SSE or long-poll the newest id waits
     * and goes out when a WebSocket is open again. A paced message may come after higher ids
     * already acked: its older id is acked on its own if a WebSocket is open (the server counts
     * paced acks once each, in id order; docs/protocol.md).
     */
    ack(id) {
      typeof id == "number" && this.link.ack(id);
    }
    /** Sugar for addEventListener that hands the listener `event.detail`. Returns an unsubscriber. */
    on(type, listener) {
      let wrapped = (event) => listener(event.detail);
      return this.addEventListener(type, wrapped), () => this.removeEventListener(type, wrapped);
    }
    emit(type, detail) {
      this.dispatchEvent(new CustomEvent(type, { detail }));
    }
    addChannels(channels) {
      let names = channels.map((c) => checkName("channel", c));
      if ((/* @__PURE__ */ new Set([...this.channels, ...names])).size > MAX_CHANNELS2)
        throw new RangeError(`RingcastClient: at most ${MAX_CHANNELS2} channels`);
      for (let c of names) this.channels.add(c);
    }
  };

  // src/web/script.ts
  globalThis.RingcastClient = RingcastClient;
})();
