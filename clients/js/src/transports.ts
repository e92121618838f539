// One opener per transport. Each starts one connection attempt and reports through `h`:
//   h.open()          the transport works (idempotent)
//   h.envelope(env)   a server envelope arrived
//   h.drop(reason)    the connection is gone
// and returns { dispose(), send?(frame) }. After dispose() the caller ignores any late report.
import type { ClientFrame, HelloEnvelope, ServerEnvelope, WebSocketConstructor } from './types.js';

export interface Handlers {
  open(): void;
  envelope(env: ServerEnvelope): void;
  drop(reason: string): void;
}
export interface OpenConnection {
  send?(frame: ClientFrame): void;
  dispose(): void;
}
/** What an opener needs of the connection it serves. */
export interface Endpoint {
  urlFor(transport: 'ws' | 'sse' | 'poll'): string;
  adoptLastId(id: unknown): void;
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly WebSocket: WebSocketConstructor | undefined;
  readonly fetch: typeof fetch;
  readonly withCredentials: boolean;
}

// A held long-poll gives no sign of life until something is published; if it has not failed
// within this time the server has accepted it (a refusal would have come back at once).
const POLL_GRACE_MS = 1000;
const WS_OPEN = 1; // WebSocket.OPEN, also where the implementation has no static constant
// Set by build.mjs: true in the server's /ringcast.js and /ringcast.mjs, which leave out the SSE
// reader for runtimes without EventSource (Node): every browser has EventSource.
declare const WEB_BUILD: boolean;

const unavailable = (h: Handlers, reason: string): OpenConnection => {
  queueMicrotask(() => h.drop(reason)); // 'auto' goes on to the next transport
  return { dispose() {} };
};

function parseEnvelope(text: unknown): ServerEnvelope | null {
  try {
    const env = JSON.parse(String(text));
    return env && typeof env === 'object' ? env : null;
  } catch {
    return null; // not ours to interpret; a broken frame must not kill the connection
  }
}

// A server on another origin gets the page's cookies over SSE and long-poll only when asked (as
// EventSource's withCredentials); a WebSocket always sends them.
const credentials = (c: Endpoint): RequestCredentials => (c.withCredentials ? 'include' : 'same-origin');

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });

function openWebSocket(c: Endpoint, h: Handlers): OpenConnection {
  // Node 20 has none: pass `WebSocket` (e.g. the `ws` package); 'auto' falls back to SSE.
  if (!c.WebSocket) return unavailable(h, 'no_websocket');
  const ws = new c.WebSocket(c.urlFor('ws'));
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let pongTimer: ReturnType<typeof setTimeout> | undefined;

  const startHeartbeat = (hello: HelloEnvelope) => {
    const idleMs = (hello.idle_timeout_s || Infinity) * 1000;
    const interval = Math.min(c.pingIntervalMs, idleMs / 2);
    pingTimer = setInterval(() => {
      ws.send('{"type":"ping"}');
      pongTimer ??= setTimeout(() => h.drop('ping_timeout'), c.pongTimeoutMs);
    }, interval);
  };

  ws.onmessage = (event) => {
    // Any frame proves the socket alive, not only the pong.
    clearTimeout(pongTimer);
    pongTimer = undefined;
    const env = parseEnvelope(event.data);
    if (!env) return;
    if (env.type === 'hello' && pingTimer === undefined) startHeartbeat(env);
    h.envelope(env);
  };
  ws.onclose = (event) => h.drop(event.code === 1009 ? 'too_large' : 'network');

  return {
    send(frame) {
      if (ws.readyState === WS_OPEN) ws.send(JSON.stringify(frame));
    },
    dispose() {
      clearInterval(pingTimer);
      clearTimeout(pongTimer);
      ws.onmessage = ws.onclose = null;
      ws.close(1000);
    },
  };
}

function openEventSource(c: Endpoint, h: Handlers): OpenConnection {
  if (typeof EventSource === 'undefined') {
    return WEB_BUILD ? unavailable(h, 'no_eventsource') : openEventStream(c, h);
  }
  const es = new EventSource(c.urlFor('sse'), { withCredentials: c.withCredentials });
  const onEnvelope = (event: MessageEvent) => {
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
    if ((event as MessageEvent).data) onEnvelope(event as MessageEvent);
    else h.drop('network');
  });
  return { dispose: () => es.close() };
}

// SSE where there is no EventSource (Node): the stream read through fetch. Only `data:` lines
// matter (each event's JSON names its own type); a stream that ends is a drop, as in a browser.
function openEventStream(c: Endpoint, h: Handlers): OpenConnection {
  const abort = new AbortController();
  (async () => {
    const response = await c.fetch(c.urlFor('sse'), {
      signal: abort.signal, headers: { accept: 'text/event-stream' }, cache: 'no-store',
      credentials: credentials(c),
    });
    if (!response.ok || !response.body) {
      const body = await response.json().catch(() => null);
      h.drop(body?.error || `http_${response.status}`);
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        if (line === '') {
          const env = data.length > 0 ? parseEnvelope(data.join('\n')) : null;
          data = [];
          if (env) h.envelope(env);
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
        }
      }
    }
    h.drop('network');
  })().catch(() => { if (!abort.signal.aborted) h.drop('network'); });
  return { dispose: () => abort.abort() };
}

function openLongPoll(c: Endpoint, h: Handlers): OpenConnection {
  const abort = new AbortController();
  const grace = setTimeout(h.open, POLL_GRACE_MS);

  (async () => {
    while (!abort.signal.aborted) {
      let response: Response;
      let body;
      try {
        response = await c.fetch(c.urlFor('poll'), {
          signal: abort.signal, cache: 'no-store', credentials: credentials(c),
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
        c.adoptLastId(body.last_id);
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

export const OPENERS = { ws: openWebSocket, sse: openEventSource, poll: openLongPoll };
