// The demo storefront: product cards, and promotions pushed live by ringcast.
import { RingcastClient } from './ringcast.mjs';

const BRANDS = ['haier', 'gree', 'midea'];
const PRODUCTS = [
  { brand: 'haier', name: 'Haier 4-door fridge', price: 1299 },
  { brand: 'haier', name: 'Haier front-load washer', price: 649 },
  { brand: 'gree', name: 'Gree split air conditioner', price: 899 },
  { brand: 'gree', name: 'Gree dehumidifier', price: 249 },
  { brand: 'midea', name: 'Midea microwave oven', price: 159 },
  { brand: 'midea', name: 'Midea dishwasher', price: 579 },
];
const MAX_SHOWN = 50; // older promotions scroll off; the page must not grow forever

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

// A returning visitor keeps their user id (localStorage); each tab is its own session (sid in
// sessionStorage), so two tabs do not replace each other's connection.
function remembered(storage, key, make) {
  let value = storage.getItem(key);
  if (!value) storage.setItem(key, (value = make()));
  return value;
}
const randomId = (prefix) => `${prefix}${Math.random().toString(36).slice(2, 10)}`;

const user = params.get('user') || remembered(localStorage, 'ringcast.user', () => randomId('guest-'));
const sid = params.get('sid') || remembered(sessionStorage, 'ringcast.sid', () => randomId('tab-'));
const transport = params.get('transport') || 'auto';
const channels = params.has('channels')
  ? params.get('channels').split(',').filter(Boolean)
  : JSON.parse(localStorage.getItem('ringcast.channels') || JSON.stringify(BRANDS));

function renderProducts() {
  const list = $('products');
  for (const p of PRODUCTS) {
    const li = document.createElement('li');
    li.className = 'product';
    li.dataset.brand = p.brand;
    li.dataset.testid = `product-${p.brand}`;
    li.innerHTML = `
      <div class="product-picture brand-${p.brand}" aria-hidden="true">${p.brand[0].toUpperCase()}</div>
      <h3></h3>
      <p class="price"></p>
      <p class="deal" hidden></p>`;
    li.querySelector('h3').textContent = p.name;
    li.querySelector('.price').textContent = `$${p.price}`;
    list.append(li);
  }
}

function renderChannelToggles(client) {
  const box = $('channels');
  for (const brand of BRANDS) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.id = `channel-${brand}`;
    input.dataset.testid = `channel-${brand}`;
    input.checked = client.channels.has(brand);
    input.addEventListener('change', () => {
      if (input.checked) client.subscribe(brand);
      else client.unsubscribe(brand);
      localStorage.setItem('ringcast.channels', JSON.stringify([...client.channels]));
    });
    label.append(input, ` ${brand}`);
    box.append(label);
  }
}

// Transport links keep the rest of the query (user, sid) so switching does not change identity.
function renderTransportLinks() {
  for (const link of document.querySelectorAll('[data-transport]')) {
    const query = new URLSearchParams(location.search);
    query.set('transport', link.dataset.transport);
    link.search = query.toString();
    if (link.dataset.transport === transport) link.setAttribute('aria-current', 'true');
  }
}

// A promotion's `data` is whatever the publisher sent: show the well-known fields when present.
function describe(data) {
  const fields = data && typeof data === 'object' ? data : {};
  const known = ['title', 'text', 'code'].filter((k) => typeof fields[k] === 'string');
  return known.length > 0 ? fields : { json: JSON.stringify(data) };
}

function audience(channel) {
  if (channel === '*') return 'everyone';
  if (channel?.startsWith('user:') || channel === 'users') return 'just for you';
  return channel;
}

function showPromotion(message) {
  const d = describe(message.data);
  const li = document.createElement('li');
  li.className = 'promotion';
  li.dataset.id = message.id;
  li.dataset.channel = message.channel;
  const time = new Date(message.ts || Date.now());
  li.innerHTML = `
    <header><span class="tag"></span><time></time></header>
    <strong class="title"></strong>
    <p class="text"></p>
    <code class="code"></code>
    <pre class="json"></pre>
    <p class="countdown" data-testid="countdown" hidden></p>`;
  li.querySelector('.tag').textContent = audience(message.channel);
  li.querySelector('time').dateTime = time.toISOString();
  li.querySelector('time').textContent = time.toLocaleTimeString();
  // textContent, never innerHTML: promotion data comes from outside.
  for (const [cls, value] of [['title', d.title], ['text', d.text], ['code', d.code], ['json', d.json]]) {
    const el = li.querySelector(`.${cls}`);
    if (typeof value === 'string') el.textContent = value;
    else el.remove();
  }
  if (message.expires) startCountdown(li, message.expires);
  const list = $('promotions');
  list.prepend(li);
  while (list.children.length > MAX_SHOWN) list.lastElementChild.remove();
  $('promotions-empty').hidden = true;
  $('promotion-count').textContent = String(Number($('promotion-count').textContent) + 1);
  markDeal(message.channel, d);
}

// An expiring promotion shows how long it has left; the server's `expired` takes it down (the
// countdown reaching zero does not: the page's clock may be off, the server's word is final).
function startCountdown(li, expires) {
  const el = li.querySelector('.countdown');
  el.hidden = false;
  const tick = () => {
    if (!li.isConnected && li.dataset.shown) return;
    li.dataset.shown = '1';
    const left = Math.max(0, Math.ceil((expires - Date.now()) / 1000));
    const m = Math.floor(left / 60);
    el.textContent = `ends in ${m > 0 ? `${m}m ` : ''}${left % 60}s`;
    setTimeout(tick, 250);
  };
  tick();
}

function removePromotion(id) {
  const li = document.querySelector(`#promotions .promotion[data-id="${id}"]`);
  if (!li) return;
  li.remove();
  $('promotion-count').textContent = String(Math.max(0, Number($('promotion-count').textContent) - 1));
  if ($('promotions').children.length === 0) $('promotions-empty').hidden = false;
}

function markDeal(channel, d) {
  if (!BRANDS.includes(channel)) return;
  for (const card of document.querySelectorAll(`.product[data-brand="${channel}"] .deal`)) {
    card.textContent = d.code ? `Deal: ${d.code}` : 'On promotion';
    card.hidden = false;
  }
}

function showStatus({ state, transport: via, reason }) {
  const status = $('status');
  status.dataset.state = state;
  status.textContent = reason && state !== 'open' ? `${state} (${reason})` : state;
  $('transport').textContent = via ?? '–';
}

// GET /demo/token says whether connects need a client token and whether this server mints them
// (--demo): the page asks for one only then, so an open server sees no failed request.
async function tokenPolicy() {
  const response = await fetch('/demo/token');
  if (!response.ok) throw new Error(`/demo/token: HTTP ${response.status}`);
  return response.json();
}
async function mintToken() {
  const response = await fetch('/demo/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user }),
  });
  if (!response.ok) throw new Error(`/demo/token: HTTP ${response.status}`);
  return (await response.json()).token;
}
const policy = await tokenPolicy().catch(() => ({ required: false, mint: false }));
const getToken = policy.required && policy.mint ? mintToken : undefined;

const client = new RingcastClient({ user, sid, channels, transport, getToken });
$('user').textContent = user;
renderProducts();
renderChannelToggles(client);
renderTransportLinks();
client.on('status', showStatus);
client.on('message', (message) => {
  showPromotion(message);
  // The time, not the 16-digit message id (kept in the title for whoever needs it).
  $('last-update').textContent = new Date().toLocaleTimeString();
  $('last-update').title = `message id ${message.id}`;
  client.ack(message.id); // shown: counts in the promotion's reach
});
client.on('expired', ({ id }) => removePromotion(id));
client.on('gap', () => { $('gap').hidden = false; });
client.connect();
// Exposed for debugging from the console and for the browser tests.
window.ringcast = client;
