// Built from clients/js/src by clients/js/build.mjs (ringcast-client 0.1.0): do not edit, edit the package. See docs/client.md.

// src/transports.ts
var POLL_GRACE_MS = 1e3;
var WS_OPEN = 1;
function parseEnvelope(text) {
  try {
    const env = JSON.parse(String(text));
    return env && typeof env === "object" ? env : null;
  } catch {
    return null;
  }
}
var sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => {
    clearTimeout(timer);
    resolve();
  }, { once: true });
});
function openWebSocket(c, h) {
  if (!c.WebSocket) {
    queueMicrotask(() => h.drop("no_websocket"));
    return { dispose() {
    } };
  }
  const ws = new c.WebSocket(c.urlFor("ws"));
  let pingTimer;
  let pongTimer;
  const startHeartbeat = (hello) => {
    const idleMs = (hello.idle_timeout_s || Infinity) * 1e3;
    const interval = Math.min(c.pingIntervalMs, idleMs / 2);
    pingTimer = setInterval(() => {
      ws.send('{"type":"ping"}');
      pongTimer ??= setTimeout(() => h.drop("ping_timeout"), c.pongTimeoutMs);
    }, interval);
  };
  ws.onmessage = (event) => {
    clearTimeout(pongTimer);
    pongTimer = void 0;
    const env = parseEnvelope(event.data);
    if (!env) return;
    if (env.type === "hello" && pingTimer === void 0) startHeartbeat(env);
    h.envelope(env);
  };
  ws.onclose = (event) => h.drop(event.code === 1009 ? "too_large" : "network");
  return {
    send(frame) {
      if (ws.readyState === WS_OPEN) ws.send(JSON.stringify(frame));
    },
    dispose() {
      clearInterval(pingTimer);
      clearTimeout(pongTimer);
      ws.onmessage = ws.onclose = null;
      ws.close(1e3);
    }
  };
}
function openEventSource(c, h) {
  if (typeof EventSource === "undefined") return openEventStream(c, h);
  const es = new EventSource(c.urlFor("sse"));
  const onEnvelope = (event) => {
    const env = parseEnvelope(event.data);
    if (env) h.envelope(env);
  };
  for (const name of ["hello", "message", "expired", "reconnect", "close", "pong"]) {
    es.addEventListener(name, onEnvelope);
  }
  es.addEventListener("error", (event) => {
    if (event.data) onEnvelope(event);
    else h.drop("network");
  });
  return { dispose: () => es.close() };
}
function openEventStream(c, h) {
  const abort = new AbortController();
  (async () => {
    const response = await c.fetch(c.urlFor("sse"), {
      signal: abort.signal,
      headers: { accept: "text/event-stream" },
      cache: "no-store"
    });
    if (!response.ok || !response.body) {
      const body = await response.json().catch(() => null);
      h.drop(body?.error || `http_${response.status}`);
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    let data = [];
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, "");
        buffered = buffered.slice(newline + 1);
        if (line === "") {
          const env = data.length > 0 ? parseEnvelope(data.join("\n")) : null;
          data = [];
          if (env) h.envelope(env);
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line[5] === " " ? 6 : 5));
        }
      }
    }
    h.drop("network");
  })().catch(() => {
    if (!abort.signal.aborted) h.drop("network");
  });
  return { dispose: () => abort.abort() };
}
function openLongPoll(c, h) {
  const abort = new AbortController();
  const grace = setTimeout(h.open, POLL_GRACE_MS);
  (async () => {
    while (!abort.signal.aborted) {
      let response;
      let body;
      try {
        response = await c.fetch(c.urlFor("poll"), { signal: abort.signal, cache: "no-store" });
        body = await response.json();
      } catch {
        if (!abort.signal.aborted) h.drop("network");
        return;
      }
      if (!response.ok) {
        h.drop(body?.error || `http_${response.status}`);
        return;
      }
      h.open();
      if (body.type === "reconnect" && body.reason === "timeout") {
        c.adoptLastId(body.last_id);
        await sleep(body.retry_ms || 0, abort.signal);
        continue;
      }
      h.envelope(body);
      if (body.type !== "messages") return;
    }
  })();
  return {
    dispose() {
      clearTimeout(grace);
      abort.abort();
    }
  };
}
var OPENERS = { ws: openWebSocket, sse: openEventSource, poll: openLongPoll };

// src/connection.ts
var FINAL_CLOSE_REASONS = /* @__PURE__ */ new Set(["kicked", "replaced"]);
var ACK_INTERVAL_MS = 100;
var PACED_REMEMBERED = 64;
var Connection = class {
  // from getToken, for the current attempt
  constructor(config, channels, sink) {
    this.config = config;
    this.channels = channels;
    this.sink = sink;
    this.lastId = config.since;
  }
  config;
  channels;
  sink;
  state = "idle";
  transport = null;
  session = null;
  // the last `hello`
  lastId;
  // After a hello without `since`, the server first sends the promotions in force (and what
  // `rewind` asked for): ids up to hello's last_id that are new to this page, not repeats.
  backlogUntil = null;
  backlogSeen = /* @__PURE__ */ new Set();
  ackedId = null;
  // the newest id the page showed (ack())
  ackSent = null;
  // the newest ack written to a WebSocket
  ackSentAt = -Infinity;
  // when (performance.now()), for ACK_INTERVAL_MS
  ackTimer = null;
  pacedAckedId = null;
  // the newest paced id acked (ack())
  pacedSeen = [];
  // ids of the last paced messages delivered (see deliver)
  conn = null;
  generation = 0;
  // identifies the current attempt; reports from older ones are ignored
  index = 0;
  // into `order`
  opened = false;
  // the current attempt reached `open`
  everOpened = false;
  failures = 0;
  // consecutive, for the back-off
  retryTimer = null;
  openTimer;
  token = null;
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
  /** Starts (or restarts after stop()); `state` is what the first status says. */
  start(state = "connecting", reason = null) {
    if (this.state !== "idle" && this.state !== "closed") return;
    this.index = 0;
    this.failures = 0;
    this.everOpened = false;
    this.attempt(state, reason);
  }
  stop(reason = "client") {
    this.disposeConnection();
    this.setStatus("closed", reason);
  }
  /** See RingcastClient.ack. */
  ack(id) {
    if (this.ackedId === null || id > this.ackedId) {
      this.ackedId = id;
      if (this.pacedSeen.includes(id)) this.pacedAckedId = id;
      this.sendAck();
      return;
    }
    const pacedAndNew = this.pacedSeen.includes(id) && id > (this.pacedAckedId ?? 0);
    if (pacedAndNew && this.conn && this.opened && this.transport === "ws") {
      this.send({ type: "ack", id });
      this.pacedAckedId = id;
    }
  }
  /** `channels` changed: tell the server (WebSocket) or reconnect with the new list. */
  channelsChanged(frame) {
    if (!this.conn) return;
    if (this.opened && this.transport === "ws") {
      this.send(frame);
    } else {
      this.restart("subscribe", 0);
    }
  }
  /** The URL of a transport endpoint with this connection's identity and resume point. */
  urlFor(transport) {
    const url = new URL(transport, this.config.base);
    if (transport === "ws") url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("user", this.config.user);
    url.searchParams.set("sid", this.config.sid);
    if (this.lastId !== null) url.searchParams.set("since", String(this.lastId));
    else if (this.config.rewind !== void 0) url.searchParams.set("rewind", String(this.config.rewind));
    if (this.channels.size > 0) url.searchParams.set("channels", [...this.channels].join(","));
    if (this.token) url.searchParams.set("token", this.token);
    return url.href;
  }
  /**
   * Take the server's last id as the resume point unless we already have a later one. Only safe
   * once everything up to that id that was addressed to us has arrived (a long-poll reply).
   */
  adoptLastId(id) {
    if (typeof id === "number" && (this.lastId === null || id > this.lastId)) this.lastId = id;
  }
  // ---- internals ----
  send(frame) {
    this.conn?.send?.(frame);
  }
  sendAck() {
    if (this.ackedId === null || this.ackSent === this.ackedId || this.ackTimer) return;
    if (!this.conn || !this.opened || this.transport !== "ws") return;
    const wait = this.ackSentAt + ACK_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.ackTimer = setTimeout(() => {
        this.ackTimer = null;
        this.sendAck();
      }, wait);
      return;
    }
    this.send({ type: "ack", id: this.ackedId });
    this.ackSent = this.ackedId;
    this.ackSentAt = performance.now();
  }
  setStatus(state, reason, extra) {
    this.state = state;
    this.sink.status({ state, transport: this.transport, reason, ...extra });
  }
  attempt(state, reason) {
    this.transport = this.config.order[this.index];
    this.opened = false;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    const h = {
      open: () => {
        if (current()) this.markOpen();
      },
      envelope: (env) => {
        if (current()) this.handleEnvelope(env);
      },
      drop: (why) => {
        if (current()) this.handleDrop(why);
      }
    };
    this.setStatus(state, reason);
    this.openTimer = setTimeout(h.drop, this.config.openTimeoutMs, "open_timeout");
    const opener = OPENERS[this.transport];
    const { getToken } = this.config;
    if (!getToken) {
      this.conn = opener(this, h);
      return;
    }
    Promise.resolve().then(getToken).then(
      (token) => {
        if (!current()) return;
        this.token = token;
        this.conn = opener(this, h);
      },
      () => {
        if (!current()) return;
        this.disposeConnection();
        this.scheduleAttempt(state, "token", this.backoff());
      }
    );
  }
  disposeConnection() {
    this.generation++;
    clearTimeout(this.openTimer);
    clearTimeout(this.retryTimer ?? void 0);
    clearTimeout(this.ackTimer ?? void 0);
    this.retryTimer = this.ackTimer = null;
    this.conn?.dispose();
    this.conn = null;
  }
  markOpen() {
    if (this.opened) return;
    clearTimeout(this.openTimer);
    this.opened = true;
    this.everOpened = true;
    this.failures = 0;
    this.setStatus("open", null);
    this.sendAck();
  }
  handleEnvelope(env) {
    switch (env.type) {
      case "hello":
        this.session = env;
        this.backlogUntil = this.lastId === null ? env.last_id : null;
        this.backlogSeen.clear();
        if (this.lastId === null) this.adoptLastId(env.last_id);
        this.markOpen();
        if (env.gap) this.sink.gap({ transport: this.transport, lastId: this.lastId });
        break;
      case "message":
        this.deliver(env);
        break;
      case "messages":
        this.markOpen();
        if (env.gap) this.sink.gap({ transport: this.transport, lastId: this.lastId });
        for (const item of env.messages || []) {
          if (item.type === "expired") this.expire(item.id);
          else this.deliver(item);
        }
        this.adoptLastId(env.last_id);
        break;
      case "reconnect":
        if (this.lastId === null) this.adoptLastId(env.last_id);
        if (this.transport === "poll" && env.reason === "replaced") this.stop("replaced");
        else this.restart(env.reason || "reconnect", env.retry_ms ?? this.backoff());
        break;
      case "close":
        if (FINAL_CLOSE_REASONS.has(env.reason)) this.stop(env.reason);
        else if (env.reason === "expired" && this.config.getToken) this.restart("expired", 0);
        else this.restart(env.reason || "close", this.backoff());
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
    if (typeof id === "number") this.sink.expired(id);
  }
  deliver(message) {
    if (typeof message.id !== "number") return;
    if (typeof message.spread_ms === "number") {
      if (this.pacedSeen.includes(message.id)) return;
      this.pacedSeen.push(message.id);
      if (this.pacedSeen.length > PACED_REMEMBERED) this.pacedSeen.shift();
    } else if (this.backlogUntil !== null && message.id <= this.backlogUntil) {
      if (this.backlogSeen.has(message.id)) return;
      this.backlogSeen.add(message.id);
    } else if (this.lastId !== null && message.id <= this.lastId) {
      return;
    }
    if (this.lastId === null || message.id > this.lastId) this.lastId = message.id;
    this.sink.message(message);
  }
  handleDrop(reason) {
    if (this.opened) {
      this.restart(reason, this.backoff());
      return;
    }
    this.disposeConnection();
    const state = this.everOpened ? "reconnecting" : "connecting";
    if (this.index + 1 < this.config.order.length) {
      this.index++;
      this.attempt(state, reason);
      return;
    }
    this.index = 0;
    this.scheduleAttempt(state, reason, this.backoff());
  }
  /** Drop the current connection and reconnect on the same transport after `delayMs`. */
  restart(reason, delayMs) {
    this.disposeConnection();
    this.scheduleAttempt("reconnecting", reason, delayMs);
  }
  scheduleAttempt(state, reason, delayMs) {
    if (delayMs <= 0) {
      this.attempt(state, reason);
      return;
    }
    this.setStatus(state, reason, { retryInMs: delayMs });
    this.retryTimer = setTimeout(() => this.attempt(state, reason), delayMs);
  }
  /** Full-jitter exponential back-off: a uniform wait in [cap/2, cap), cap doubling per failure. */
  backoff() {
    const { backoffMinMs, backoffMaxMs } = this.config;
    const cap = Math.min(backoffMaxMs, backoffMinMs * 2 ** this.failures++);
    return Math.round(cap / 2 + Math.random() * cap / 2);
  }
};

// src/shared.ts
var BEAT_MS = 500;
var LEADER_LOST_MS = 1500;
var IN_FORCE_KEPT = 100;
var MAX_CHANNELS = 32;
function canShare() {
  return typeof document !== "undefined" && typeof BroadcastChannel !== "undefined";
}
var TabGroup = class {
  constructor(config, channels, sink) {
    this.config = config;
    this.channels = channels;
    this.sink = sink;
    const { base, user, order, getToken } = config;
    this.name = `ringcast:${JSON.stringify([base.href, user, order.join(), Boolean(getToken)])}`;
    this.sid = config.sid;
    this.cursor = config.since;
  }
  config;
  channels;
  sink;
  tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
  name;
  bus = null;
  members = /* @__PURE__ */ new Map();
  // the other tabs and their channels
  sid;
  // the group's session id: the first leader's sid, kept by every leader
  cursor;
  // where the group's stream resumes
  acked = null;
  // the newest id any tab acked
  lastStatus = null;
  session = null;
  inForce = /* @__PURE__ */ new Map();
  // for tabs that join later
  connection = null;
  // while leading
  resign = null;
  // ends the lead (releases the lock)
  lockRequest = null;
  beatTimer;
  lastBeat = 0;
  overflow = "";
  // the channels last left out of the union (union())
  onPageHide = () => this.stop();
  onPageShow = (event) => {
    if (event.persisted) this.start();
  };
  get lastId() {
    return this.connection?.lastId ?? this.cursor;
  }
  start() {
    if (this.bus) {
      if (this.connection) this.connection.start();
      else this.post({ t: "restart" });
      return;
    }
    this.bus = new BroadcastChannel(this.name);
    this.bus.onmessage = (event) => this.receive(event.data);
    addEventListener("pagehide", this.onPageHide);
    addEventListener("pageshow", this.onPageShow);
    this.sink.status({ state: "connecting", transport: null, reason: null });
    this.post({ t: "join", channels: [...this.channels] });
    const locks = typeof navigator !== "undefined" ? navigator.locks : void 0;
    if (locks) {
      this.lockRequest = new AbortController();
      locks.request(this.name, { signal: this.lockRequest.signal }, () => this.lead()).catch(() => {
      });
    } else {
      this.lastBeat = performance.now();
      this.beatTimer = setInterval(() => this.watchLeader(), BEAT_MS);
    }
  }
  stop() {
    if (!this.bus) return;
    const wasLeader = this.connection !== null;
    this.endLead();
    this.lockRequest?.abort();
    this.lockRequest = null;
    clearInterval(this.beatTimer);
    this.post({ t: "leave", leader: wasLeader });
    this.bus.close();
    this.bus = null;
    removeEventListener("pagehide", this.onPageHide);
    removeEventListener("pageshow", this.onPageShow);
    this.sink.status({ state: "closed", transport: null, reason: "client" });
  }
  // This tab's channels changed: the leader brings the group's connection to the new union.
  channelsChanged() {
    this.post({ t: "channels", channels: [...this.channels] });
    if (this.connection) this.applyUnion();
  }
  ack(id) {
    this.noteAck(id);
    if (this.connection) this.connection.ack(id);
    else this.post({ t: "ack", id });
  }
  // ---- leading ----
  // Called when this tab wins the election; resolves when it stops leading.
  lead() {
    if (!this.bus) return Promise.resolve();
    const current = () => this.connection === connection;
    const leaderSink = {
      message: (message) => {
        if (!current()) return;
        this.cursor = connection.lastId;
        const inForce = this.isInForce(message);
        this.keep(message, inForce);
        this.post({ t: "message", message, cursor: this.cursor, inForce });
        this.sink.message(message);
      },
      expired: (id) => {
        if (!current()) return;
        this.inForce.delete(id);
        this.post({ t: "expired", id });
        this.sink.expired(id);
      },
      status: (status) => {
        if (!current()) return;
        this.cursor = connection.lastId;
        this.session = connection.session;
        this.lastStatus = status;
        this.post({ t: "status", status, session: this.session, cursor: this.cursor });
        this.sink.status(status);
      },
      gap: (detail) => {
        if (!current()) return;
        this.post({ t: "gap", detail });
        this.sink.gap(detail);
      },
      error: (detail) => {
        if (!current()) return;
        this.post({ t: "error", detail });
        this.sink.error(detail);
      }
    };
    const connection = new Connection(
      { ...this.config, sid: this.sid, since: this.cursor },
      new Set(this.union()),
      leaderSink
    );
    this.connection = connection;
    if (this.acked !== null) connection.ack(this.acked);
    this.broadcastState();
    const tookOver = this.lastStatus !== null;
    connection.start(tookOver ? "reconnecting" : "connecting", tookOver ? "leader" : null);
    if (this.beatTimer !== void 0) this.post({ t: "beat" });
    return new Promise((resolve) => {
      this.resign = resolve;
    });
  }
  endLead() {
    const connection = this.connection;
    if (!connection) return;
    this.cursor = connection.lastId;
    this.connection = null;
    connection.stop();
    this.resign?.();
    this.resign = null;
  }
  // Every tab's channels, this tab's first, at most the server's 32 for one connection. The
  // channels left out are announced (`overflow`): their tabs report an error instead of silently
  // missing them.
  union() {
    const all = new Set(this.channels);
    const left = /* @__PURE__ */ new Set();
    for (const channels of this.members.values()) {
      for (const c of channels) {
        if (all.has(c)) continue;
        if (all.size < MAX_CHANNELS) all.add(c);
        else left.add(c);
      }
    }
    const overflow = [...left].sort().join(",");
    if (overflow !== this.overflow) {
      this.overflow = overflow;
      if (left.size > 0) {
        this.post({ t: "overflow", channels: [...left] });
        this.reportOverflow([...left]);
      }
    }
    return all;
  }
  reportOverflow(channels) {
    const mine = channels.filter((c) => this.channels.has(c));
    if (mine.length === 0) return;
    this.sink.error({
      type: "error",
      code: "too_many_channels",
      message: `not subscribed to ${mine.join(", ")}: the connection shared by this browser's tabs holds at most ${MAX_CHANNELS} channels (share: false gives this tab a connection of its own)`
    });
  }
  // The group's channels changed: bring the connection's set to the union.
  applyUnion() {
    const target = this.union();
    const held = this.connection.channels;
    const added = [...target].filter((c) => !held.has(c));
    const removed = [...held].filter((c) => !target.has(c));
    for (const c of added) held.add(c);
    for (const c of removed) held.delete(c);
    if (added.length > 0) this.connection.channelsChanged({ type: "subscribe", channels: added });
    if (removed.length > 0) this.connection.channelsChanged({ type: "unsubscribe", channels: removed });
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
    const leading = this.connection !== null;
    switch (post.t) {
      case "join":
      case "channels":
        this.members.set(post.from, post.channels);
        if (!leading) break;
        this.applyUnion();
        if (post.t === "join") {
          this.broadcastState();
          this.post({ t: "welcome", to: post.from, messages: this.messagesInForce() });
        }
        break;
      case "leave":
        this.members.delete(post.from);
        if (leading) this.applyUnion();
        else if (post.leader) this.leaderGone();
        break;
      case "ack":
        this.noteAck(post.id);
        this.connection?.ack(post.id);
        break;
      case "restart":
        this.connection?.start();
        break;
      case "beat":
        this.lastBeat = performance.now();
        if (leading && post.from < this.tab) this.endLead();
        break;
      case "state":
        this.members = new Map(post.members.filter(([tab]) => tab !== this.tab));
        this.sid = post.sid;
        this.adoptCursor(post.cursor);
        this.noteAck(post.acked);
        this.session = post.session;
        this.lastBeat = performance.now();
        if (post.status) this.followStatus(post.status);
        break;
      case "welcome":
        if (post.to !== this.tab) break;
        for (const message of post.messages) this.keep(message, true);
        for (const message of post.messages) this.sink.message(message);
        break;
      case "message":
        this.adoptCursor(post.cursor);
        this.keep(post.message, post.inForce);
        this.sink.message(post.message);
        break;
      case "expired":
        this.inForce.delete(post.id);
        this.sink.expired(post.id);
        break;
      case "status":
        this.adoptCursor(post.cursor);
        this.session = post.session;
        this.lastBeat = performance.now();
        this.followStatus(post.status);
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
  followStatus(status) {
    this.lastStatus = status;
    this.sink.status(status);
  }
  // The leader left: until the next one's connection reports, the group is reconnecting.
  leaderGone() {
    this.followStatus({ state: "reconnecting", transport: null, reason: "leader" });
    if (this.beatTimer !== void 0 && [...this.members.keys()].every((tab) => tab > this.tab)) {
      void this.lead();
    }
  }
  watchLeader() {
    if (this.connection) this.post({ t: "beat" });
    else if (performance.now() - this.lastBeat > LEADER_LOST_MS) void this.lead();
  }
  adoptCursor(id) {
    if (id !== null && (this.cursor === null || id > this.cursor)) this.cursor = id;
  }
  noteAck(id) {
    if (id !== null && (this.acked === null || id > this.acked)) this.acked = id;
  }
  // The group keeps what its connection got as in force (on a connect without `since`) and the
  // promotions whose ttl is still running, for a tab that joins later.
  isInForce(message) {
    const backlogUntil = this.connection?.backlogUntil ?? null;
    return backlogUntil !== null && message.id <= backlogUntil || message.expires !== void 0;
  }
  keep(message, inForce) {
    if (!inForce) return;
    this.inForce.set(message.id, message);
    if (this.inForce.size > IN_FORCE_KEPT) this.inForce.delete(this.inForce.keys().next().value);
  }
  messagesInForce() {
    const now = Date.now();
    return [...this.inForce.values()].filter((m) => m.expires === void 0 || m.expires > now).sort((a, b) => a.id - b.id);
  }
  post(post) {
    this.bus?.postMessage({ ...post, from: this.tab });
  }
};

// src/client.ts
var TRANSPORTS = ["ws", "sse", "poll"];
var NAME_PATTERN = /^[A-Za-z0-9_.:@-]{1,64}$/;
var MAX_CHANNELS2 = 32;
var RECENT_IDS = 1024;
var DEFAULTS = {
  sid: "0",
  channels: [],
  transport: "auto",
  pingIntervalMs: 2e4,
  pongTimeoutMs: 1e4,
  openTimeoutMs: 1e4,
  backoffMinMs: 500,
  backoffMaxMs: 3e4,
  share: true
};
function checkName(kind, value) {
  if (typeof value !== "string" || !NAME_PATTERN.test(value)) {
    throw new TypeError(`RingcastClient: invalid ${kind} ${JSON.stringify(value)}`);
  }
  return value;
}
var RingcastClient = class extends EventTarget {
  options;
  user;
  sid;
  /** This client's channels (with a shared connection, the connection holds every tab's). */
  channels = /* @__PURE__ */ new Set();
  state = "idle";
  transport = null;
  /** True while this tab's connection is shared with other tabs (see `share`). */
  shared;
  link;
  recent = /* @__PURE__ */ new Set();
  constructor(options) {
    super();
    const o = { ...DEFAULTS, ...options };
    this.options = o;
    this.user = checkName("user", o.user);
    this.sid = checkName("sid", String(o.sid));
    if (o.transport !== "auto" && !TRANSPORTS.includes(o.transport)) {
      throw new TypeError(`RingcastClient: unknown transport ${JSON.stringify(o.transport)}`);
    }
    this.addChannels(o.channels);
    const origin = globalThis.location?.origin;
    if (o.url === void 0 && !origin) {
      throw new TypeError("RingcastClient: `url` is required where there is no page");
    }
    const fetchImpl = o.fetch ?? globalThis.fetch;
    const config = {
      base: new URL(o.url ?? origin + "/"),
      user: this.user,
      sid: this.sid,
      order: o.transport === "auto" ? TRANSPORTS : [o.transport],
      since: o.since ?? null,
      rewind: o.rewind,
      pingIntervalMs: o.pingIntervalMs,
      pongTimeoutMs: o.pongTimeoutMs,
      openTimeoutMs: o.openTimeoutMs,
      backoffMinMs: o.backoffMinMs,
      backoffMaxMs: o.backoffMaxMs,
      getToken: o.getToken,
      WebSocket: o.WebSocket ?? globalThis.WebSocket,
      fetch: (input, init) => fetchImpl(input, init)
    };
    this.shared = o.share && canShare();
    this.link = this.shared ? new TabGroup(config, this.channels, this.sink) : new Connection(config, this.channels, this.sink);
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
    if (this.state === "idle" || this.state === "closed") this.link.start();
    return this;
  }
  /** Stop for good: no reconnect until connect() is called again. */
  close() {
    if (this.state === "idle" || this.state === "closed") return;
    this.link.stop();
  }
  subscribe(...channels) {
    const added = channels.flat().filter((c) => !this.channels.has(checkName("channel", c)));
    if (added.length === 0) return;
    this.addChannels(added);
    this.link.channelsChanged({ type: "subscribe", channels: added });
  }
  unsubscribe(...channels) {
    const removed = channels.flat().filter((c) => this.channels.delete(c));
    if (removed.length === 0) return;
    this.link.channelsChanged({ type: "unsubscribe", channels: removed });
  }
  /**
   * Tells the server the page showed message `id` (it counts in the message's reach). Acks are
   * cumulative and only a WebSocket can carry them: over SSE or long-poll the newest id waits
   * and goes out when a WebSocket is open again. A paced message may come after higher ids
   * already acked: its older id is acked on its own if a WebSocket is open (the server counts
   * paced acks once each, in id order; docs/protocol.md).
   */
  ack(id) {
    if (typeof id === "number") this.link.ack(id);
  }
  /** Sugar for addEventListener that hands the listener `event.detail`. Returns an unsubscriber. */
  on(type, listener) {
    const wrapped = (event) => listener(event.detail);
    this.addEventListener(type, wrapped);
    return () => this.removeEventListener(type, wrapped);
  }
  // What the connection reports; with a shared connection every tab's client hears it.
  sink = {
    message: (message) => {
      const { channel, id } = message;
      const mine = channel === "*" || channel === "users" || channel.startsWith("user:") || this.channels.has(channel);
      if (!mine || this.recent.has(id)) return;
      this.recent.add(id);
      if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value);
      this.emit("message", message);
    },
    expired: (id) => this.emit("expired", { id }),
    status: (status) => {
      this.state = status.state;
      this.transport = status.transport;
      this.emit("status", status);
    },
    gap: (gap) => this.emit("gap", gap),
    error: (error) => this.emit("error", error)
  };
  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
  addChannels(channels) {
    const names = channels.map((c) => checkName("channel", c));
    if ((/* @__PURE__ */ new Set([...this.channels, ...names])).size > MAX_CHANNELS2) {
      throw new RangeError(`RingcastClient: at most ${MAX_CHANNELS2} channels`);
    }
    for (const c of names) this.channels.add(c);
  }
};
export {
  RingcastClient,
  RingcastClient as default
};
