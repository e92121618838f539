// A backend's Pusher webhook endpoint for the Pusher door's tests: an HTTP server on 127.0.0.1
// that checks every POST with the real `pusher` SDK's webhook verification (webhook({headers,
// rawBody}).isValid()), as a shop's backend would, and records it.
import http from 'node:http';
import Pusher from 'pusher';

// A receiver for `app` ({appId, key, secret}); `answer(n)` is the status of the n-th POST (from 0).
// Each POST is recorded as { status, headers, rawBody, valid, events, time }.
export async function startWebhookReceiver(app, answer = () => 200) {
  const sdk = new Pusher({ ...app, host: '127.0.0.1' });
  const posts = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString();
      const webhook = sdk.webhook({ headers: req.headers, rawBody });
      const record = { headers: req.headers, rawBody, valid: webhook.isValid() };
      record.events = record.valid ? webhook.getEvents() : [];
      record.time = record.valid ? webhook.getTime() : null;
      record.status = answer(posts.length);
      posts.push(record);
      res.writeHead(record.status);
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  // The events of the POSTs answered 200, in the order they came.
  const accepted = () => posts.filter((p) => p.status === 200).flatMap((p) => p.events);
  return {
    url: `http://127.0.0.1:${server.address().port}/pusher/webhooks`,
    posts,
    accepted,
    events: (channel) => accepted().filter((e) => e.channel === channel),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
