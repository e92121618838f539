// One connection per browser, shared by its tabs (docs/client.md, "One connection per browser").
//
// The tabs of one origin that connect as the same user to the same server with the same settings
// form a group, named by those settings. One tab, the leader, holds the group's connection, with
// the union of every tab's channels and the group's one session; it fans out over a
// BroadcastChannel what the connection reports, with the connection's resume point (`cursor`).
// Every tab keeps the group's members, session, cursor and newest ack, so that when the leader
// goes, the next one resumes from the cursor with the same session and channels: nothing is lost,
// and each tab's client drops an id it already delivered, so nothing is repeated.
//
// Election: a Web Lock named after the group (the browser grants it to one tab at a time, and to
// the next waiting tab when the holder closes or crashes). Without Web Locks: the leader beats every
// BEAT_MS over the channel; a tab that hears no leader for LEADER_LOST_MS claims the lead, and of
// two leaders the one with the higher tab id steps down. Without BroadcastChannel, or without a
// document (Node, workers), every client holds its own connection.
import { Connection } from './connection.js';
import type { ConnectionConfig, Sink } from './connection.js';
import type { ClientState, HelloEnvelope, RingcastMessage, StatusEvent } from './types.js';

const BEAT_MS = 500;
const LEADER_LOST_MS = 1500;
const IN_FORCE_KEPT = 100; // as the server's default --max-sticky
const MAX_CHANNELS = 32; // the server's limit for one connection
// Ids this tab delivered lately, so that no message reaches the page twice, whatever way it came
// (a new leader's resume overlapping what the old one fanned out).
const RECENT_IDS = 1024;

export function canShare(): boolean {
  return typeof document !== 'undefined' && typeof BroadcastChannel !== 'undefined';
}

// What the tabs of a group say to each other (every post carries its sender's tab id).
type Post =
  | { t: 'join' | 'channels'; from: string; channels: string[] }
  | { t: 'leave'; from: string; leader: boolean }
  | { t: 'ack'; from: string; id: number }
  | { t: 'beat' | 'restart'; from: string }
  | { t: 'state'; from: string; members: Array<[string, string[]]>; sid: string;
      cursor: number | null; acked: number | null; status: StatusEvent | null;
      session: HelloEnvelope | null }
  | { t: 'welcome'; from: string; to: string; messages: RingcastMessage[] }
  | { t: 'message'; from: string; message: RingcastMessage; cursor: number | null; inForce: boolean }
  | { t: 'expired'; from: string; id: number }
  | { t: 'status'; from: string; status: StatusEvent; session: HelloEnvelope | null;
      cursor: number | null }
  | { t: 'overflow'; from: string; channels: string[] }
  | { t: 'gap' | 'error'; from: string; detail: any };

type Distribute<T> = T extends unknown ? Omit<T, 'from'> : never;

export class TabGroup {
  readonly tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
  private readonly name: string;
  private bus: BroadcastChannel | null = null;
  private members = new Map<string, string[]>(); // the other tabs and their channels
  private sid: string; // the group's session id: the first leader's sid, kept by every leader
  cursor: number | null; // where the group's stream resumes
  private acked: number | null = null; // the newest id any tab acked
  private lastStatus: StatusEvent | null = null;
  session: HelloEnvelope | null = null;
  private inForce = new Map<number, RingcastMessage>(); // for tabs that join later
  private connection: Connection | null = null; // while leading
  private resign: (() => void) | null = null; // ends the lead (releases the lock)
  private lockRequest: AbortController | null = null;
  private beatTimer: ReturnType<typeof setInterval> | undefined;
  private lastBeat = 0;
  private overflow = ''; // the channels last left out of the union (union())
  private readonly onPageHide = () => this.stop();
  private readonly onPageShow = (event: PageTransitionEvent) => { if (event.persisted) this.start(); };

  private readonly sink: Sink; // this tab's client
  private readonly recent = new Set<number>();

  constructor(
    private readonly config: ConnectionConfig,
    private readonly channels: Set<string>, // this tab's own
    tabSink: Sink,
  ) {
    // The group's connection carries every tab's channels: this tab takes its own and the messages
    // to everyone, to its user or to a list of users, each once.
    this.sink = {
      ...tabSink,
      message: (message) => {
        const { channel, id } = message;
        const mine = channel === '*' || channel === 'users' || channel.startsWith('user:') ||
          this.channels.has(channel);
        if (!mine || this.recent.has(id)) return;
        this.recent.add(id);
        if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value!);
        tabSink.message(message);
      },
    };
    // The group: the same server, user, transports and credentials.
    const { base, user, order, getToken, withCredentials } = config;
    const key = [base.href, user, order.join(), Boolean(getToken), withCredentials];
    this.name = `ringcast:${JSON.stringify(key)}`;
    this.sid = config.sid;
    this.cursor = config.since;
  }

  get lastId() { return this.connection?.lastId ?? this.cursor; }

  start() {
    if (this.bus) {
      // connect() after a final close (kicked, replaced) of the group's connection: start it again.
      if (this.connection) this.connection.start();
      else this.post({ t: 'restart' });
      return;
    }
    this.bus = new BroadcastChannel(this.name);
    this.bus.onmessage = (event) => this.receive(event.data as Post);
    addEventListener('pagehide', this.onPageHide);
    addEventListener('pageshow', this.onPageShow);
    this.sink.status(this.groupStatus('connecting', null));
    this.post({ t: 'join', channels: [...this.channels] });
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (locks) {
      this.lockRequest = new AbortController();
      locks.request(this.name, { signal: this.lockRequest.signal }, () => this.lead())
        .catch(() => {}); // aborted by stop(): this tab left before its turn
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
    this.post({ t: 'leave', leader: wasLeader });
    this.bus.close();
    this.bus = null;
    removeEventListener('pagehide', this.onPageHide);
    removeEventListener('pageshow', this.onPageShow);
    this.sink.status(this.groupStatus('closed', 'client'));
    this.lastStatus = null; // a connect() after this starts afresh, as a tab's own client would
  }

  // This tab's channels changed: the leader brings the group's connection to the new union.
  channelsChanged() {
    this.post({ t: 'channels', channels: [...this.channels] });
    if (this.connection) this.applyUnion();
  }

  ack(id: number) {
    this.noteAck(id);
    if (this.connection) this.connection.ack(id);
    else this.post({ t: 'ack', id });
  }

  // ---- leading ----

  // Called when this tab wins the election; resolves when it stops leading.
  private lead(): Promise<void> {
    if (!this.bus) return Promise.resolve();
    // Reports of a connection this tab no longer leads with (stopped, or stepped down) are not
    // the group's.
    const current = () => this.connection === connection;
    const leaderSink: Sink = {
      message: (message) => {
        if (!current()) return;
        this.cursor = connection.lastId;
        const inForce = this.isInForce(message);
        this.keep(message, inForce);
        this.post({ t: 'message', message, cursor: this.cursor, inForce });
        this.sink.message(message);
      },
      expired: (id) => {
        if (!current()) return;
        this.inForce.delete(id);
        this.post({ t: 'expired', id });
        this.sink.expired(id);
      },
      status: (status) => {
        if (!current()) return;
        this.cursor = connection.lastId;
        this.session = connection.session;
        this.lastStatus = status;
        this.post({ t: 'status', status, session: this.session, cursor: this.cursor });
        this.sink.status(status);
      },
      gap: (detail) => {
        if (!current()) return;
        this.post({ t: 'gap', detail });
        this.sink.gap(detail);
      },
      error: (detail) => {
        if (!current()) return;
        this.post({ t: 'error', detail });
        this.sink.error(detail);
      },
    };
    const connection = new Connection(
      { ...this.config, sid: this.sid, since: this.cursor }, new Set(this.union()), leaderSink);
    this.connection = connection;
    if (this.acked !== null) connection.ack(this.acked); // goes out once open: acks are cumulative
    this.broadcastState();
    // A leader that took over continues the group's stream: the tabs see it as a reconnect.
    const tookOver = this.lastStatus !== null;
    connection.start(tookOver ? 'reconnecting' : 'connecting', tookOver ? 'leader' : null);
    if (this.beatTimer !== undefined) this.post({ t: 'beat' });
    return new Promise((resolve) => { this.resign = resolve; });
  }

  private endLead() {
    const connection = this.connection;
    if (!connection) return;
    this.cursor = connection.lastId;
    this.connection = null; // first: the connection's last status is not the group's (lead())
    connection.stop();
    this.resign?.();
    this.resign = null;
  }

  // Every tab's channels, this tab's first, at most the server's 32 for one connection. The
  // channels left out are announced (`overflow`): their tabs report an error instead of silently
  // missing them.
  private union(): Set<string> {
    const all = new Set(this.channels);
    const left = new Set<string>();
    for (const channels of this.members.values()) {
      for (const c of channels) {
        if (all.has(c)) continue;
        if (all.size < MAX_CHANNELS) all.add(c);
        else left.add(c);
      }
    }
    const overflow = [...left].sort().join(',');
    if (overflow !== this.overflow) {
      this.overflow = overflow;
      if (left.size > 0) {
        this.post({ t: 'overflow', channels: [...left] });
        this.reportOverflow([...left]);
      }
    }
    return all;
  }

  private reportOverflow(channels: string[]) {
    const mine = channels.filter((c) => this.channels.has(c));
    if (mine.length === 0) return;
    this.sink.error({
      type: 'error', code: 'too_many_channels',
      message: `not subscribed to ${mine.join(', ')}: the connection shared by this browser's tabs ` +
        `holds at most ${MAX_CHANNELS} channels (share: false gives this tab a connection of its own)`,
    });
  }

  // The group's channels changed: bring the connection's set to the union.
  private applyUnion() {
    const target = this.union();
    const held = this.connection!.channels;
    const added = [...target].filter((c) => !held.has(c));
    const removed = [...held].filter((c) => !target.has(c));
    for (const c of added) held.add(c);
    for (const c of removed) held.delete(c);
    if (added.length > 0) this.connection!.channelsChanged({ type: 'subscribe', channels: added });
    if (removed.length > 0) this.connection!.channelsChanged({ type: 'unsubscribe', channels: removed });
  }

  private broadcastState() {
    this.post({
      t: 'state', members: [...this.members, [this.tab, [...this.channels]]], sid: this.sid,
      cursor: this.lastId, acked: this.acked, status: this.lastStatus, session: this.session,
    });
  }

  // ---- following ----

  private receive(post: Post) {
    const leading = this.connection !== null;
    switch (post.t) {
      case 'join':
      case 'channels':
        this.members.set(post.from, post.channels);
        if (!leading) break;
        this.applyUnion();
        if (post.t === 'join') {
          // A tab opened after a final close (kicked, replaced) connects, as a tab of its own would.
          if (this.connection!.state === 'closed') this.connection!.start();
          this.broadcastState();
          this.post({ t: 'welcome', to: post.from, messages: this.messagesInForce() });
        }
        break;
      case 'leave':
        this.members.delete(post.from);
        if (leading) this.applyUnion();
        else if (post.leader) this.leaderGone();
        break;
      case 'ack':
        this.noteAck(post.id);
        this.connection?.ack(post.id);
        break;
      case 'restart':
        this.connection?.start();
        break;
      case 'beat':
        this.lastBeat = performance.now();
        // Two leaders (possible only without Web Locks): the higher tab id steps down.
        if (leading && post.from < this.tab) this.endLead();
        break;
      case 'state':
        this.members = new Map(post.members.filter(([tab]) => tab !== this.tab));
        this.sid = post.sid;
        this.adoptCursor(post.cursor);
        this.noteAck(post.acked);
        this.session = post.session;
        this.lastBeat = performance.now();
        if (post.status) this.followStatus(post.status);
        break;
      case 'welcome':
        if (post.to !== this.tab) break;
        for (const message of post.messages) this.keep(message, true);
        for (const message of post.messages) this.sink.message(message);
        break;
      case 'message':
        this.adoptCursor(post.cursor);
        this.keep(post.message, post.inForce);
        this.sink.message(post.message);
        break;
      case 'expired':
        this.inForce.delete(post.id);
        this.sink.expired(post.id);
        break;
      case 'status':
        this.adoptCursor(post.cursor);
        this.session = post.session;
        this.lastBeat = performance.now();
        this.followStatus(post.status);
        break;
      case 'overflow':
        this.reportOverflow(post.channels);
        break;
      case 'gap':
        this.sink.gap(post.detail);
        break;
      case 'error':
        this.sink.error(post.detail);
        break;
    }
  }

  // A status of the group's own (no connection's): the transport is the last one the group's
  // connection used, or the first it will try, as a tab's own client says.
  private groupStatus(state: ClientState, reason: string | null): StatusEvent {
    return { state, transport: this.lastStatus?.transport ?? this.config.order[0]!, reason };
  }

  private followStatus(status: StatusEvent) {
    this.lastStatus = status;
    this.sink.status(status);
  }

  // The leader left: until the next one's connection reports, the group is reconnecting.
  private leaderGone() {
    this.followStatus(this.groupStatus('reconnecting', 'leader'));
    // Without Web Locks the lowest remaining tab id claims at once; the others wait for its beat.
    if (this.beatTimer !== undefined && [...this.members.keys()].every((tab) => tab > this.tab)) {
      void this.lead();
    }
  }

  private watchLeader() {
    if (this.connection) this.post({ t: 'beat' });
    else if (performance.now() - this.lastBeat > LEADER_LOST_MS) void this.lead();
  }

  private adoptCursor(id: number | null) {
    if (id !== null && (this.cursor === null || id > this.cursor)) this.cursor = id;
  }

  private noteAck(id: number | null) {
    if (id !== null && (this.acked === null || id > this.acked)) this.acked = id;
  }

  // The group keeps what its connection got as in force (on a connect without `since`) and the
  // promotions whose ttl is still running, for a tab that joins later.
  private isInForce(message: RingcastMessage) {
    const backlogUntil = this.connection?.backlogUntil ?? null;
    return (backlogUntil !== null && message.id <= backlogUntil) || message.expires !== undefined;
  }

  private keep(message: RingcastMessage, inForce: boolean) {
    if (!inForce) return;
    this.inForce.set(message.id, message);
    if (this.inForce.size > IN_FORCE_KEPT) this.inForce.delete(this.inForce.keys().next().value!);
  }

  private messagesInForce() {
    const now = Date.now();
    return [...this.inForce.values()]
      .filter((m) => m.expires === undefined || m.expires > now)
      .sort((a, b) => a.id - b.id);
  }

  private post(post: Distribute<Post>) {
    this.bus?.postMessage({ ...post, from: this.tab });
  }
}
