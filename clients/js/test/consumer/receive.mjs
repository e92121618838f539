// Runs in an empty project into which the packed ringcast-client was installed (pack.test.mjs):
//   node receive.mjs <server url> <admin token> <transport> <count>
// connects as a new user over <transport>, publishes <count> messages to that user with the
// package's typed publish client (ringcast-client/publish), one every 250 ms while the server
// ends every connection after a second (--max-connection-age), and prints { received, statuses }
// as JSON: every message once, in order, across the reconnects.
import { RingcastClient } from 'ringcast-client';
import { createPublishClient } from 'ringcast-client/publish';

const [url, token, transport, countText] = process.argv.slice(2);
const count = Number(countText);
const user = `node-${transport}-${process.pid}`;
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
async function until(what, predicate, ms) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

// The package's typed publish client, as a backend would publish.
const admin = createPublishClient({ url, adminToken: token });
async function publish(n) {
  await admin.publish({ user, data: { n } });
}

const client = new RingcastClient({ url, user, transport, backoffMinMs: 100 });
const received = [];
const statuses = [];
client.on('message', (message) => {
  received.push(message.data.n);
  client.ack(message.id);
});
client.on('status', ({ state, transport: via, reason }) => statuses.push([state, via, reason]));
client.connect();
try {
  await until('open', () => client.state === 'open', 5000);
  for (let n = 1; n <= count; n++) {
    await publish(n);
    await sleep(250);
  }
  await until(`${count} messages`, () => received.length >= count, 5000);
  await sleep(200); // a repeat would come now
} finally {
  client.close();
  console.log(JSON.stringify({ received, statuses, shared: client.shared }));
}
