// The public client: one per page (or per Node process's subscriber). It holds the tab's own
// channels and events; the connection is its own (Connection) or one shared with the other tabs of
// this browser (TabGroup, docs/client.md "One connection per browser").
import { Connection } from './connection.js';
import type { ConnectionConfig, Sink } from './connection.js';
import { TabGroup, canShare } from './shared.js';
import type {
  ClientFrame, ClientState, HelloEnvelope, RingcastEventMap, RingcastEventType,
  RingcastOptions, Transport,
} from './types.js';

const TRANSPORTS: readonly Transport[] = ['ws', 'sse', 'poll'];
const NAME_PATTERN = /^[A-Za-z0-9_.:@-]{1,64}$/;
const MAX_CHANNELS = 32;

const DEFAULTS = {
  sid: '0',
  channels: [] as string[],
  transport: 'auto',
  pingIntervalMs: 20000,
  pongTimeoutMs: 10000,
  openTimeoutMs: 10000,
  backoffMinMs: 500,
  backoffMaxMs: 30000,
  share: true,
  withCredentials: false,
} as const;

function checkName(kind: string, value: unknown): string {
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) {
    throw new TypeError(`RingcastClient: invalid ${kind} ${JSON.stringify(value)}`);
  }
  return value;
}

/** What the client needs of its connection, own or shared. */
export interface Link {
  start(): void;
  stop(): void;
  channelsChanged(frame: ClientFrame): void;
  ack(id: number): void;
  readonly lastId: number | null;
  readonly session: HelloEnvelope | null;
}

export class RingcastClient extends EventTarget {
  readonly options: Readonly<RingcastOptions>;
  readonly user: string;
  readonly sid: string;
  /** This client's channels (with a shared connection, the connection holds every tab's). */
  readonly channels = new Set<string>();
  state: ClientState = 'idle';
  transport: Transport | null = null;
  /** True while this tab's connection is shared with other tabs (see `share`). */
  readonly shared: boolean;
  private readonly link: Link;

  constructor(options: RingcastOptions) {
    super();
    const o = { ...DEFAULTS, ...options };
    this.options = o;
    this.user = checkName('user', o.user);
    this.sid = checkName('sid', String(o.sid));
    if (o.transport !== 'auto' && !TRANSPORTS.includes(o.transport)) {
      throw new TypeError(`RingcastClient: unknown transport ${JSON.stringify(o.transport)}`);
    }
    this.addChannels(o.channels);
    const origin = globalThis.location?.origin;
    if (o.url === undefined && !origin) {
      throw new TypeError('RingcastClient: `url` is required where there is no page');
    }
    const fetchImpl = o.fetch ?? globalThis.fetch;
    const config: ConnectionConfig = {
      ...o,
      base: new URL(o.url ?? origin + '/'),
      user: this.user,
      sid: this.sid,
      order: o.transport === 'auto' ? TRANSPORTS : [o.transport],
      since: o.since ?? null,
      WebSocket: o.WebSocket ?? globalThis.WebSocket,
      // Called as a function, not as the config's method: a browser's fetch wants `this` unset.
      fetch: (input, init) => fetchImpl(input, init),
    };
    this.shared = o.share && canShare();
    this.link = this.shared
      ? new TabGroup(config, this.channels, this.sink)
      : new Connection(config, this.channels, this.sink);
  }

  /** The id of the last message of the stream: where a reconnect resumes. */
  get lastId(): number | null { return this.link.lastId; }
  /** The last `hello` of the connection. */
  get session(): HelloEnvelope | null { return this.link.session; }

  /** Start (or restart after close()). Returns this. */
  connect(): this {
    if (this.state === 'idle' || this.state === 'closed') this.link.start();
    return this;
  }

  /** Stop for good: no reconnect until connect() is called again. */
  close(): void {
    if (this.state === 'idle' || this.state === 'closed') return;
    this.link.stop();
  }

  subscribe(...channels: Array<string | string[]>): void {
    const added = channels.flat().filter((c) => !this.channels.has(checkName('channel', c)));
    if (added.length === 0) return;
    this.addChannels(added);
    this.link.channelsChanged({ type: 'subscribe', channels: added });
  }

  unsubscribe(...channels: Array<string | string[]>): void {
    const removed = channels.flat().filter((c) => this.channels.delete(c));
    if (removed.length === 0) return;
    this.link.channelsChanged({ type: 'unsubscribe', channels: removed });
  }

  /**
   * Tells the server the page showed message `id` (it counts in the message's reach). Acks are
   * cumulative and only a WebSocket can carry them: over SSE or long-poll the newest id waits
   * and goes out when a WebSocket is open again. A paced message may come after higher ids
   * already acked: its older id is acked on its own if a WebSocket is open (the server counts
   * paced acks once each, in id order; docs/protocol.md).
   */
  ack(id: number): void {
    if (typeof id === 'number') this.link.ack(id);
  }

  /** Sugar for addEventListener that hands the listener `event.detail`. Returns an unsubscriber. */
  on<K extends RingcastEventType>(type: K, listener: (detail: RingcastEventMap[K]) => void): () => void {
    const wrapped = (event: Event) => listener((event as CustomEvent<RingcastEventMap[K]>).detail);
    this.addEventListener(type, wrapped);
    return () => this.removeEventListener(type, wrapped);
  }

  // What the connection reports (with a shared connection, what the tab group passes on).
  private readonly sink: Sink = {
    message: (message) => this.emit('message', message),
    expired: (id) => this.emit('expired', { id }),
    status: (status) => {
      this.state = status.state;
      this.transport = status.transport;
      this.emit('status', status);
    },
    gap: (gap) => this.emit('gap', gap),
    error: (error) => this.emit('error', error),
  };

  private emit<K extends RingcastEventType>(type: K, detail: RingcastEventMap[K]) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  private addChannels(channels: readonly string[]) {
    const names = channels.map((c) => checkName('channel', c));
    // Checked before adding, so a refused call leaves the subscription as it was.
    if (new Set([...this.channels, ...names]).size > MAX_CHANNELS) {
      throw new RangeError(`RingcastClient: at most ${MAX_CHANNELS} channels`);
    }
    for (const c of names) this.channels.add(c);
  }
}
