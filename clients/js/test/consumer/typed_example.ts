// Every public type of ringcast-client, used as an application would; type-checked with
// `tsc --strict --noEmit` in a project that installed the packed tarball (pack.test.mjs). The
// lines marked ts-expect-error must stay errors: the types refuse what the protocol refuses.
import { RingcastClient } from 'ringcast-client';
import type {
  ClientFrame, ClientState, CloseEnvelope, CloseReason, ErrorEnvelope, ExpiredEnvelope,
  ExpiredEvent, GapEvent, HelloEnvelope, MessageEnvelope, MessagesEnvelope, PongEnvelope,
  ReconnectEnvelope, ReconnectReason, RingcastEventMap, RingcastEventType, RingcastMessage,
  RingcastOptions, ServerEnvelope, StatusEvent, StatusReason, Transport, WebSocketConstructor,
  WebSocketLike,
} from 'ringcast-client';

interface Promotion { title: string; text?: string; code?: string }

// A WebSocket stand-in of one's own (e.g. a test double) fits WebSocketConstructor.
class QuietSocket implements WebSocketLike {
  readyState = 0;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  constructor(readonly url: string) {}
  send(_data: string): void {}
  close(_code?: number): void {}
}
const socketClass: WebSocketConstructor = QuietSocket;

const transport: Transport = 'sse';
const options: RingcastOptions = {
  url: 'http://127.0.0.1:8080/',
  user: 'alice',
  sid: 'tab-1',
  channels: ['gree'],
  transport,
  since: 1795324463570048,
  rewind: '30s',
  pingIntervalMs: 20000,
  pongTimeoutMs: 10000,
  openTimeoutMs: 10000,
  backoffMinMs: 500,
  backoffMaxMs: 30000,
  getToken: async () => 'a.jwt.token',
  share: false,
  withCredentials: true,
  WebSocket: socketClass,
  fetch: globalThis.fetch,
};
const client = new RingcastClient(options);

const state: ClientState = client.state;
const via: Transport | null = client.transport;
const last: number | null = client.lastId;
const hello: HelloEnvelope | null = client.session;
const channels: ReadonlySet<string> = client.channels;
const shared: boolean = client.shared;

const offMessage = client.on('message', (m: RingcastMessage) => {
  const promotion = m.data as Promotion;
  const expires: number | undefined = m.expires;
  console.log(m.id, m.channel, m.ts, expires, m.spread_ms, promotion.title);
  client.ack(m.id);
});
client.on('expired', (e: ExpiredEvent) => console.log(e.id));
client.on('status', (s: StatusEvent) => {
  const reason: StatusReason | null = s.reason;
  console.log(s.state, s.transport, reason, s.retryInMs);
});
client.on('gap', (g: GapEvent) => console.log(g.transport, g.lastId));
client.on('error', (e: ErrorEnvelope) => console.log(e.code, e.message));
client.addEventListener('message', (event) => console.log((event as CustomEvent<RingcastMessage>).detail));

// A listener for any event, typed by the event map.
function log<K extends RingcastEventType>(type: K, detail: RingcastEventMap[K]) {
  console.log(type, detail);
}
log('gap', { transport: 'poll', lastId: 1 });

// Every envelope of docs/protocol.md, narrowed by its `type`.
function describe(env: ServerEnvelope): string {
  switch (env.type) {
    case 'hello': return `${env.session} resumed=${env.resumed} last=${env.last_id} gap=${env.gap} ` +
      `${env.heartbeat_s}/${env.idle_timeout_s}/${env.session_ttl_s}`;
    case 'message': return `${(env satisfies MessageEnvelope).id} on ${env.channel}`;
    case 'expired': return `expired ${(env satisfies ExpiredEnvelope).id}`;
    case 'reconnect': {
      const reason: ReconnectReason = (env satisfies ReconnectEnvelope).reason;
      return `reconnect ${reason} in ${env.retry_ms} ms after ${env.last_id}`;
    }
    case 'close': {
      const reason: CloseReason = (env satisfies CloseEnvelope).reason;
      return `close ${reason}`;
    }
    case 'error': return `${env.code}: ${env.message}`;
    case 'pong': return (env satisfies PongEnvelope).type;
    case 'messages': {
      const reply: MessagesEnvelope = env;
      return `${reply.messages.length} messages to ${reply.last_id}${reply.more ? ', more' : ''}`;
    }
  }
}
const frames: ClientFrame[] = [
  { type: 'ping' }, { type: 'ack', id: 1 }, { type: 'subscribe', channels: ['a'] },
  { type: 'unsubscribe', channels: ['a'] },
];

client.subscribe('midea');
client.subscribe(['haier', 'gree']);
client.unsubscribe('gree');
client.connect().close();
offMessage();
console.log(state, via, last, hello, channels, shared, describe({ type: 'pong' }), frames);

// @ts-expect-error: not a transport
new RingcastClient({ user: 'bob', transport: 'xhr' });
// @ts-expect-error: `user` is required
new RingcastClient({ sid: '1' });
// @ts-expect-error: not an event of the client
client.on('mesage', () => {});
// @ts-expect-error: a status has no `id`
client.on('status', (s) => s.id);
// @ts-expect-error: not a client frame
const bad: ClientFrame = { type: 'publish', data: 1 };
console.log(bad);
