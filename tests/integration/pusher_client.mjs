// pusher-js 8 in Node as a shop configures it to move onto ringcast (docs/pusher.md), for the
// Pusher door's tests: its auth handlers sign with the real `pusher` SDK as the shop's auth
// endpoint would, and every frame it decodes is kept.
import PusherJs from 'pusher-js';
import Pusher from 'pusher';
import { waitFor } from './harness.mjs';

// A connected client of `server` for `app` ({appId, key, secret}); `user` ({id, info}) is what its
// presence subscriptions and sign-in name.
export async function pusherClient(server, app, { user = null, key = app.key } = {}) {
  const sdk = new Pusher({ ...app, host: server.host, port: String(server.port), useTLS: false });
  const pusher = new PusherJs(key, {
    wsHost: server.host,
    wsPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    cluster: 'unused',
    channelAuthorization: {
      customHandler: ({ socketId, channelName }, callback) => {
        const data = channelName.startsWith('presence-')
          ? { user_id: user.id, user_info: user.info ?? null } : undefined;
        callback(null, sdk.authorizeChannel(socketId, channelName, data));
      },
    },
    userAuthentication: {
      customHandler: ({ socketId }, callback) => callback(null, sdk.authenticateUser(socketId, user)),
    },
  });
  const frames = [];
  pusher.connection.bind('message', (m) => frames.push(m));
  await new Promise((resolve, reject) => {
    pusher.connection.bind('connected', resolve);
    pusher.connection.bind('failed', () => reject(new Error('pusher-js failed to connect')));
  });
  const c = {
    pusher,
    frames,
    socketId: pusher.connection.socket_id,
    // The first frame (after those already matched) for which pred holds.
    next(pred, what, timeoutMs = 3000) {
      return waitFor(() => frames.find(pred), timeoutMs, what);
    },
    async subscribe(name) {
      const channel = pusher.subscribe(name);
      await new Promise((resolve, reject) => {
        channel.bind('pusher:subscription_succeeded', resolve);
        channel.bind('pusher:subscription_error', (e) => reject(Object.assign(new Error(`refused ${name}`), e)));
      });
      return channel;
    },
    close() { pusher.disconnect(); },
  };
  return c;
}


// A frame predicate: `event` on `channel`.
export const eventOn = (channel, event) => (m) => m.channel === channel && m.event === event;
