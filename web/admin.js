// The admin page: sign in with the token, publish, kick, and watch the server live.
import { call, token, ApiError } from './admin_api.js';
import { WheelView } from './wheel.js';
import { LineChart } from './chart.js';
import { showTopChannels, TOP_CHANNELS } from './top_channels.js';
import {
  clearOneOffFields, refreshPromotions, published, timingFields, whenANewMessageAppears,
} from './admin_promotions.js';
import { DeliveryChart } from './admin_delivery_chart.js';

const STATS_EVERY_MS = 1000;
const $ = (id) => document.getElementById(id);

const wheel = new WheelView($('wheel'));
const connectionsChart = new LineChart($('chart-connections'), {
  series: [
    { key: 'total', label: 'total', color: '#1d2330' },
    { key: 'ws', label: 'ws', color: '#2f6fed' },
    { key: 'sse', label: 'sse', color: '#1f9d55' },
    { key: 'poll', label: 'poll', color: '#e66100' },
  ],
});
const messagesChart = new LineChart($('chart-messages'), {
  series: [
    { key: 'published', label: 'published', color: '#2f6fed' },
    { key: 'delivered', label: 'delivered', color: '#1f9d55' },
  ],
});
const deliveryChart = new DeliveryChart($('chart-deliveries'), $('deliveries-summary'));
// A scheduled publish going out (or one through the API) becomes the last promotion too.
whenANewMessageAppears((id) => deliveryChart.follow(id));

// ---- signing in ----

function askForToken(message) {
  $('sign-out').hidden = true; // there is nothing to sign out of
  $('login-error').hidden = !message;
  $('login-error').textContent = message ?? '';
  setStatsStatus('idle', 'signed out');
  if (!$('login').open) $('login').showModal();
  $('token').focus();
}

$('login-form').addEventListener('submit', () => {
  token.set($('token').value.trim());
  $('token').value = '';
  pollStats();
});

// Without a token the page can show nothing, so Escape does not dismiss the dialog.
$('login').addEventListener('cancel', (event) => event.preventDefault());

$('sign-out').addEventListener('click', () => {
  token.clear();
  askForToken();
});

/** Shows an API failure where the user is looking; a 401 sends them back to the token dialog. */
function report(err, where) {
  if (err instanceof ApiError && err.status === 401) {
    token.clear();
    askForToken('The server did not accept that token.');
    return;
  }
  where.textContent = err instanceof ApiError ? `${err.code}: ${err.message}` : String(err);
  where.classList.add('error');
}

function succeed(where, text) {
  where.textContent = text;
  where.classList.remove('error');
}

// ---- publish and kick ----

$('publish-audience').addEventListener('change', () => {
  const audience = $('publish-audience').value;
  $('publish-target-label').hidden = audience === 'broadcast';
  $('publish-target').required = audience !== 'broadcast';
  $('publish-target').placeholder = { user: 'alice', users: 'alice, bob, carol' }[audience] ?? 'gree';
});

$('publish-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = $('publish-result');
  let data;
  try {
    data = JSON.parse($('publish-data').value);
  } catch (err) {
    report(`The data is not valid JSON: ${err.message}`, result);
    return;
  }
  const body = { data, ...timingFields() };
  // A "Publish at" already past goes out to everyone at once: only if that is what is meant.
  if (body.at !== undefined && body.at <= Date.now() &&
      !window.confirm(`"Publish at" (${new Date(body.at).toLocaleString()}) is in the past: publish it now?`)) {
    succeed(result, 'Not published: "Publish at" is in the past.');
    return;
  }
  const audience = $('publish-audience').value;
  if (audience === 'users') body.users = $('publish-target').value.split(/[\s,]+/u).filter(Boolean);
  else if (audience !== 'broadcast') body[audience] = $('publish-target').value.trim();
  try {
    const reply = await call('POST', '/admin/publish', body);
    clearOneOffFields();
    if (reply.scheduled) {
      succeed(result, `Scheduled ${reply.scheduled} for ${new Date(reply.at).toLocaleString()}.`);
      refreshPromotions();
      return;
    }
    succeed(result, `Published #${reply.id} to ${reply.recipients} live session(s).`);
    published(reply.id);
    deliveryChart.follow(reply.id);
  } catch (err) {
    report(err, result);
  }
});

$('kick-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = $('kick-result');
  const user = $('kick-user').value.trim();
  try {
    const reply = await call('POST', '/admin/kick', { user });
    succeed(result, `Kicked ${reply.kicked} session(s) of ${user}.`);
  } catch (err) {
    report(err, result);
  }
});

// ---- live stats ----

let previous = null; // the last reading, to turn counters into rates
let statsTimer = null;

function setStatsStatus(state, text) {
  $('stats-status').dataset.state = state;
  $('stats-status').textContent = text;
}

function sum(object) {
  return Object.values(object ?? {}).reduce((a, b) => a + b, 0);
}

function list(object) {
  const entries = Object.entries(object ?? {}).filter(([, v]) => v > 0);
  return entries.length > 0 ? entries.map(([k, v]) => `${k} ${v}`).join(', ') : 'none';
}

function formatUptime(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ${s % 60}s`;
}

// Which node answered: behind a load balancer each reading may come from another node of the
// cluster, and its figures are that node's only, so the page says which, and rates are taken
// between two readings of the same node.
function nodeLabel(stats) {
  const address = stats.node?.address ?? '?';
  return stats.redis ? `${address} (id ${stats.node?.id}; one node of a cluster: its own figures)` : address;
}

function show(stats, now) {
  const c = stats.connections ?? {};
  const m = stats.messages ?? {};
  const node = `${stats.node?.address}/${stats.node?.id}`;
  if (previous && previous.node !== node) previous = null;
  const seconds = previous ? (now - previous.at) / 1000 : 0;
  const rate = (key) =>
    seconds > 0 ? Math.max(0, (m[key] - previous.stats.messages[key]) / seconds) : 0;
  const published = rate('published');
  const delivered = rate('delivered');

  $('stat-node').textContent = nodeLabel(stats);
  $('stat-uptime').textContent = formatUptime(stats.uptime_ms ?? 0);
  $('stat-connections').textContent = `${c.total} total — ws ${c.ws}, sse ${c.sse}, poll ${c.poll}`;
  $('stat-sessions').textContent = `${stats.sessions?.total} (${stats.sessions?.connected} connected)`;
  $('stat-message-rate').textContent = published.toFixed(1);
  $('stat-delivery-rate').textContent = delivered.toFixed(1);
  $('stat-last-id').textContent = String(m.last_id);
  $('stat-expirations').textContent = `${sum(stats.expirations)}: ${list(stats.expirations)}`;
  $('stat-reused').textContent = String(stats.sessions_reused);
  $('stat-moves').textContent = list(stats.moves);

  if (stats.wheel?.slots) {
    const w = stats.wheel;
    const drawn = wheel.update(w);
    $('wheel-tick').textContent = `${w.tick} (${w.tick_ms} ms, ${w.slots} slots × ${w.levels} levels)`;
    $('wheel-armed').textContent = String(w.armed);
    $('wheel-drawn').textContent = `${drawn} in levels 0–1`;
    $('wheel-counters').textContent = list(w.counters);
  }

  connectionsChart.push(now, { total: c.total, ws: c.ws, sse: c.sse, poll: c.poll });
  if (previous) messagesChart.push(now, { published, delivered });
  previous = { at: now, stats, node };
}

// One request at a time: the next reading is scheduled when this one is done, so a slow server
// is not piled up with requests.
async function pollStats() {
  clearTimeout(statsTimer);
  if (!token.get()) {
    askForToken();
    return;
  }
  try {
    const stats = await call('GET', '/admin/stats');
    setStatsStatus('open', 'live');
    $('sign-out').hidden = false;
    $('error').hidden = true;
    show(stats, Date.now());
    const presence = await call('GET', `/admin/presence?top=${TOP_CHANNELS}`).catch(() => null);
    showTopChannels($('top-channels'), presence?.channels ?? null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      report(err, $('error'));
      return; // wait for a new token; signing in restarts polling
    }
    setStatsStatus('reconnecting', 'stats unavailable');
    $('error').hidden = false;
    report(err, $('error'));
  }
  statsTimer = setTimeout(pollStats, STATS_EVERY_MS);
}

pollStats();
