// Not a test (no .test.mjs): measures the delivery pause of an upgrade in place with N WebSocket
// clients and a broadcast every 50 ms. RINGCAST_BIN=... node tests/integration/upgrade_pause.measure.mjs 2000
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, sleep, startServer, uid, waitFor } from './harness.mjs';

const n = Number(process.argv[2] ?? 1000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringcast-upgrade-'));
const next = path.join(dir, 'ringcast-next');
fs.copyFileSync(BIN, next);
fs.chmodSync(next, 0o755);
const srv = await startServer(['--upgrade-binary', next, '--threads', '2', '--max-connections', String(n + 100)], { maxFiles: 4 * n + 200 });
const clients = [];
for (let i = 0; i < n; i += 100) {
  clients.push(...await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => srv.wsHello({ user: uid('m') }))));
}
const arrivals = clients.map(() => []);
clients.forEach((c, i) => c.socket.on('message', () => arrivals[i].push(performance.now())));
let stop = false;
const published = [];
const pub = (async () => { while (!stop) { published.push((await srv.publish({ data: 'x' })).id); await sleep(50); } })();
await sleep(1000);
const cpuBefore = fs.readFileSync(`/proc/${srv.proc.pid}/stat`, 'utf8').split(' ');
const signalled = performance.now();
srv.proc.kill('SIGUSR2');
await srv.statsUntil((s) => s.upgrades === 1, 20000, 'upgraded');
await sleep(1000);
stop = true;
await pub;
await waitFor(() => clients.every((c) => c.ids().at(-1) === published.at(-1)), 10000, 'all delivered');
const cpuAfter = fs.readFileSync(`/proc/${srv.proc.pid}/stat`, 'utf8').split(' ');
let worst = 0;
for (const a of arrivals) for (let i = 1; i < a.length; i++) if (a[i] > signalled - 100) worst = Math.max(worst, a[i] - a[i - 1]);
const closed = clients.filter((c) => !c.isOpen()).length;
const wrong = clients.filter((c) => JSON.stringify(c.ids().filter((id) => id >= published[0])) !== JSON.stringify(published)).length;
const ticks = (s) => Number(s[13]) + Number(s[14]);
console.log(JSON.stringify({
  clients: n, published: published.length, closed, wrongOrder: wrong,
  longestGapMs: Math.round(worst), logLine: /upgraded in place.*/u.exec(srv.log)?.[0],
  cpuTicksDuringWindow: ticks(cpuAfter) - ticks(cpuBefore),
}));
await srv.stop();
