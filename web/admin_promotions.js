// The admin page's promotions: when, for how long and how paced a publish runs, whether it stays in
// force (sticky), the scheduled publishes waiting (with cancel), and the reach of the recent
// promotions (whoever published them, the sticky ones marked, with take-down), kept live.
import { call, token } from './admin_api.js';

const REFRESH_EVERY_MS = 1000;
const SHOWN = 10; // the most recent promotions whose reach is shown
const $ = (id) => document.getElementById(id);
let newestSeen = null; // the newest message id known to the page (null: not read yet)
let onNewMessage = () => {};

/** Empties the options that belong to one publish, so that the next one does not repeat them. */
export function clearOneOffFields() {
  for (const id of ['publish-at', 'publish-ttl', 'publish-spread']) $(id).value = '';
  $('publish-sticky').checked = false;
}

/** The "at", "ttl", "spread" and "sticky" fields of a publish, from the form (empty: none). */
export function timingFields() {
  const fields = {};
  const at = $('publish-at').value;
  if (at) fields.at = new Date(at).getTime(); // datetime-local is the browser's local time
  const ttl = $('publish-ttl').value.trim();
  if (ttl) fields.ttl = ttl;
  // Sent as typed: the server checks it and says what is wrong (400) better than the page could.
  const spread = $('publish-spread').value.trim();
  if (spread) fields.spread = spread;
  if ($('publish-sticky').checked) fields.sticky = true;
  return fields;
}

/**
 * `callback(id)` is called for each message that appears after the page first read the list, and
 * was not published from the page (see published()): a scheduled publish going out, a publish
 * through the API.
 */
export function whenANewMessageAppears(callback) {
  onNewMessage = callback;
}

/** The page published message `id` itself: read the reach now. */
export function published(id) {
  newestSeen = Math.max(newestSeen ?? 0, id);
  refreshPromotions();
}

function cell(row, text, label) {
  const td = document.createElement('td');
  td.textContent = text; // textContent: the data comes from outside
  if (label) td.dataset.label = label; // shown before the value when the rows are stacked (phone)
  row.append(td);
  return td;
}

function audienceOf(request) {
  if (request.users) return `users: ${request.users.join(', ')}`;
  if (request.user) return `user: ${request.user}`;
  if (request.channel) return `channel: ${request.channel}`;
  return 'everyone';
}

async function cancel(id) {
  try {
    await call('DELETE', `/admin/scheduled/${encodeURIComponent(id)}`);
    $('scheduled-result').textContent = `Cancelled ${id}.`;
    $('scheduled-result').classList.remove('error');
  } catch (err) {
    $('scheduled-result').textContent = `${err.code}: ${err.message}`;
    $('scheduled-result').classList.add('error');
  }
  refreshPromotions();
}

async function takeDown(id) {
  try {
    await call('DELETE', `/admin/messages/${id}`);
    $('reach-result').textContent = `Took #${id} down.`;
    $('reach-result').classList.remove('error');
  } catch (err) {
    $('reach-result').textContent = `${err.code}: ${err.message}`;
    $('reach-result').classList.add('error');
  }
  refreshPromotions();
}

let shownScheduled = null;
function showScheduled(list) {
  // Redrawn only when it changed: a row must not be replaced under a pointer about to click Cancel.
  const key = JSON.stringify(list);
  if (key === shownScheduled) return;
  shownScheduled = key;
  const body = $('scheduled').querySelector('tbody');
  body.replaceChildren();
  for (const s of list) {
    const row = document.createElement('tr');
    row.dataset.scheduled = s.scheduled;
    cell(row, new Date(s.at).toLocaleString());
    cell(row, audienceOf(s.request));
    const data = cell(row, JSON.stringify(s.request.data));
    data.className = 'data';
    data.title = data.textContent;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Cancel';
    button.dataset.testid = 'cancel-scheduled';
    button.addEventListener('click', () => cancel(s.scheduled));
    cell(row, '').append(button);
    body.append(row);
  }
  $('scheduled').hidden = list.length === 0;
  $('scheduled-empty').hidden = list.length > 0;
}

let shownReach = null;
async function showReach() {
  const rows = (await call('GET', `/admin/messages?limit=${SHOWN}`)).messages;
  const newest = rows[0]?.id ?? 0;
  if (newestSeen !== null && newest > newestSeen) onNewMessage(newest);
  newestSeen = Math.max(newestSeen ?? 0, newest);
  // Redrawn only when it changed: a row must not be replaced under a pointer about to take it down.
  const key = JSON.stringify(rows);
  if (key === shownReach) return;
  shownReach = key;
  const body = $('reach').querySelector('tbody');
  body.replaceChildren();
  for (const r of rows) {
    const row = document.createElement('tr');
    row.dataset.id = r.id;
    // Named by its title (or the start of its data): sixteen digits tell an operator nothing. The
    // id is the tooltip. A server before `label` gives the id only.
    const name = cell(row, r.label || `#${r.id}`);
    name.className = 'label';
    name.dataset.testid = 'label';
    name.title = `#${r.id}${r.label ? `: ${r.label}` : ''}`;
    cell(row, String(r.recipients), 'recipients');
    cell(row, String(r.delivered), 'delivered').dataset.testid = 'delivered';
    cell(row, String(r.acked), 'acked').dataset.testid = 'acked';
    const state = cell(row, r.expired ? 'expired' : r.sticky ? 'in force' : '');
    state.dataset.testid = 'state';
    if (r.sticky) row.classList.add('sticky');
    if (!r.expired) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'danger';
      button.textContent = 'Take down';
      button.dataset.testid = 'take-down';
      button.addEventListener('click', () => takeDown(r.id));
      cell(row, '').append(button);
    } else {
      cell(row, '');
    }
    body.append(row);
  }
  $('reach').hidden = rows.length === 0;
  $('reach-empty').hidden = rows.length > 0;
}

let timer = null;
/** Reads the schedule and the reach again now, then every second. */
export async function refreshPromotions() {
  clearTimeout(timer);
  if (token.get()) {
    try {
      showScheduled((await call('GET', '/admin/scheduled')).scheduled);
      await showReach();
    } catch {
      // The stats panel reports an unreachable server or a wrong token; try again later.
    }
  }
  timer = setTimeout(refreshPromotions, REFRESH_EVERY_MS);
}

refreshPromotions();
