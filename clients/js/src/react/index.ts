// ringcast-client/react: useRingcast(options) → { messages, status, client }.
import { useEffect, useState } from 'react';
import { RingcastClient } from '../index.js';
import type { RingcastMessage, RingcastOptions, StatusEvent } from '../types.js';

export interface UseRingcastOptions extends RingcastOptions {
  /** Keep at most this many messages, the newest (default 100). */
  maxMessages?: number;
}

export interface UseRingcastResult<Data = unknown> {
  /** The messages received, oldest first; an expired one is removed. */
  messages: Array<RingcastMessage<Data>>;
  /** The last status (state `idle` until the client starts). */
  status: StatusEvent;
  /** The client, for subscribe/unsubscribe/ack; null before the first effect (server rendering). */
  client: RingcastClient | null;
}

const IDLE: StatusEvent = { state: 'idle', transport: null, reason: null };

/**
 * Connects while the component is mounted. The client is made again when the identity changes
 * (url, user, sid, transport, share) and its channels follow `options.channels`.
 */
export function useRingcast<Data = unknown>(options: UseRingcastOptions): UseRingcastResult<Data> {
  const [client, setClient] = useState<RingcastClient | null>(null);
  const [messages, setMessages] = useState<Array<RingcastMessage<Data>>>([]);
  const [status, setStatus] = useState<StatusEvent>(IDLE);
  const { url, user, sid, transport, share } = options;
  const max = options.maxMessages ?? 100;
  const channelKey = (options.channels ?? []).join(',');

  useEffect(() => {
    const made = new RingcastClient(options);
    const off = [
      made.on('message', (m) => setMessages((list) => [...list, m as RingcastMessage<Data>].slice(-max))),
      made.on('expired', ({ id }) => setMessages((list) => list.filter((m) => m.id !== id))),
      made.on('status', setStatus),
    ];
    setClient(made);
    made.connect();
    return () => {
      for (const remove of off) remove();
      made.close();
      setClient(null);
    };
    // The options object is new on every render: only the identity makes a new client.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [String(url ?? ''), user, sid, transport, share, max]);

  useEffect(() => {
    if (!client) return;
    const wanted = channelKey === '' ? [] : channelKey.split(',');
    const stale = [...client.channels].filter((c) => !wanted.includes(c));
    if (stale.length > 0) client.unsubscribe(stale);
    client.subscribe(wanted);
  }, [client, channelKey]);

  return { messages, status, client };
}
