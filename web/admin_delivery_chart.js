// The admin page's chart of the last promotion's deliveries per second. After a publish it reads
// GET /admin/messages/<id> about once a second and draws how much "delivered" rose between two
// readings, per second, over the time since the publish, with the "spread" window shaded
// (docs/protocol.md, "Paced publish"). It stops when the message leaves history or a little after
// the window has passed. What it drew is on the canvas's data- attributes, for tests.
import { call, ApiError } from './admin_api.js';
import { PAD, drawValueGrid, formatNumber, niceCeiling, sharpContext } from './chart.js';

const READ_EVERY_MS = 1000;
// Read on this long after the window: the last turns come up to a tick late, and the reading that
// sees them is up to a second after that.
const AFTER_WINDOW_MS = 2500;
// Without a first reading the window is unknown: give up after this long of failed reads.
const GIVE_UP_UNREAD_MS = 10 * 1000;
const UNITS_MS = { ms: 1, s: 1000, m: 60 * 1000, h: 60 * 60 * 1000 };

/** A duration as the server writes it ("3s", "500ms", "10m"; a bare number is seconds), in ms. */
export function durationMs(text) {
  const match = /^(\d+)(ms|s|m|h)?$/u.exec(text ?? '0');
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNITS_MS[match[2] ?? 's'];
}

export class DeliveryChart {
  /** canvas: where to draw; summary: an element that says the same in words. */
  constructor(canvas, summary) {
    this.canvas = canvas;
    this.summary = summary;
    Object.assign(this, sharpContext(canvas));
    this.run = null;
  }

  /** Follows message `id`, published just now, instead of the one followed before. */
  follow(id) {
    const run = {
      id,
      start: performance.now(),
      spreadMs: null, // known from the first reading
      recipients: null,
      readings: [{ t: 0, delivered: 0 }], // t: ms since the publish; nothing was delivered before it
      state: 'reading',
    };
    this.run = run;
    this.read(run);
  }

  async read(run) {
    let reply = null;
    try {
      reply = await call('GET', `/admin/messages/${run.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) run.state = 'gone';
      // Other failures (the server unreachable, a revoked token) the stats panel reports; try again.
    }
    if (this.run !== run) return; // a newer publish is followed now
    const t = performance.now() - run.start;
    if (reply) {
      run.spreadMs = durationMs(reply.spread ?? '0');
      run.recipients = reply.recipients;
      run.readings.push({ t, delivered: reply.delivered });
    }
    const deadline = run.spreadMs === null ? GIVE_UP_UNREAD_MS : run.spreadMs + AFTER_WINDOW_MS;
    if (run.state === 'reading' && t > deadline) run.state = 'done';
    this.draw(run);
    if (run.state === 'reading') setTimeout(() => this.read(run), READ_EVERY_MS);
  }

  /** Between each two readings: { from, to } in ms since the publish, and the deliveries then. */
  static intervals(readings) {
    return readings.slice(1).map((r, i) => ({
      from: Math.round(readings[i].t),
      to: Math.round(r.t),
      count: r.delivered - readings[i].delivered,
    }));
  }

  draw(run) {
    const { ctx, width, height } = this;
    const bars = DeliveryChart.intervals(run.readings);
    const spreadMs = run.spreadMs ?? 0;
    const delivered = run.readings.at(-1).delivered;
    const perSecond = bars.map((b) => (b.to > b.from ? (b.count * 1000) / (b.to - b.from) : 0));
    const peak = Math.max(0, ...perSecond);
    Object.assign(this.canvas.dataset, {
      messageId: String(run.id),
      state: run.state,
      spreadMs: String(spreadMs),
      delivered: String(delivered),
      intervals: JSON.stringify(bars),
    });
    const spreadText = spreadMs > 0 ? `spread over ${formatSeconds(spreadMs)}` : 'at once';
    const gone = run.state === 'gone' ? '; no longer in history' : '';
    this.summary.textContent = `#${run.id}, ${spreadText}: ${delivered} delivered` +
      `${run.recipients === null ? '' : ` of ${run.recipients} recipient(s)`}, ` +
      `at most ${formatNumber(peak)}/s${gone}.`;

    ctx.clearRect(0, 0, width, height);
    const plotW = width - PAD.left - PAD.right;
    const plotH = height - PAD.top - PAD.bottom;
    const span = Math.max(spreadMs + AFTER_WINDOW_MS, run.readings.at(-1).t, 1);
    const max = niceCeiling(Math.max(1, peak));
    const x = (t) => PAD.left + (plotW * t) / span;
    const y = (v) => PAD.top + plotH * (1 - v / max);

    // The spread window, shaded, labelled at its end.
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    if (spreadMs > 0) {
      ctx.fillStyle = '#eef2fd';
      ctx.fillRect(x(0), PAD.top, x(spreadMs) - x(0), plotH);
      ctx.fillStyle = '#2f6fed';
      ctx.textAlign = 'right';
      ctx.fillText(`spread ${formatSeconds(spreadMs)}`, x(spreadMs) - 4, PAD.top + 8);
    }
    // Grid: zero, half and max, labelled on the left.
    drawValueGrid(ctx, width, max, y);
    ctx.textAlign = 'left';
    ctx.fillText('publish', PAD.left, height - PAD.bottom / 2);
    ctx.textAlign = 'right';
    ctx.fillText(`+${formatSeconds(span)}`, width - PAD.right, height - PAD.bottom / 2);

    // One bar per interval between readings, as high as its deliveries per second.
    ctx.fillStyle = '#1f9d55';
    bars.forEach((b, i) => {
      const left = x(b.from) + 1;
      ctx.fillRect(left, y(perSecond[i]), Math.max(1, x(b.to) - left - 1), y(0) - y(perSecond[i]));
    });
    ctx.textAlign = 'left';
    ctx.fillText(`deliveries/s, now ${formatNumber(perSecond.at(-1) ?? 0)}`, PAD.left, PAD.top / 2);
  }
}

function formatSeconds(ms) {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
