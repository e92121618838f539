// Draws the timing wheel from /admin/stats: level 0 as the inner ring, level 1 as the outer ring,
// one arc per slot coloured by how many timers wait in it, and a hand per level at the current tick.
//
// Stats arrive once a second, but the hand of level 0 moves every tick (100 ms by default). So the
// rings are rendered once per reading into an offscreen canvas, and only the hands are redrawn
// each animation frame, at the tick extrapolated from the reading's time.

const EMPTY = '#e6e9ef';
const HAND = '#d64545';
const LEVEL_HUES = [220, 150]; // blue inner ring, green outer ring
const MIN_SLOT_PX = 3;

export class WheelView {
  constructor(canvas) {
    this.canvas = canvas;
    this.size = Math.min(canvas.width, canvas.height);
    this.scale = window.devicePixelRatio || 1;
    canvas.style.width = `${canvas.width}px`;
    canvas.style.height = `${canvas.height}px`;
    canvas.width *= this.scale;
    canvas.height *= this.scale;
    this.rings = document.createElement('canvas');
    this.rings.width = canvas.width;
    this.rings.height = canvas.height;
    this.wheel = null;
    this.readAt = 0;
    this.frame = this.frame.bind(this);
  }

  /** Takes a `wheel` object from /admin/stats; returns the number of timers the rings show. */
  update(wheel) {
    this.wheel = wheel;
    this.readAt = performance.now();
    const drawn = this.renderRings(wheel);
    // For tests and curious users: what the picture shows, as numbers.
    this.canvas.dataset.occupied = String(drawn.timers);
    this.canvas.dataset.occupiedSlots = String(drawn.slots);
    this.canvas.dataset.tick = String(wheel.tick);
    if (!this.animating) {
      this.animating = true;
      requestAnimationFrame(this.frame);
    }
    return drawn.timers;
  }

  geometry(level) {
    const r = this.size / 2;
    // Level 0 gets the inner band, level 1 the outer; a gap between keeps them apart.
    return level === 0 ? { inner: r * 0.42, outer: r * 0.68 } : { inner: r * 0.72, outer: r * 0.96 };
  }

  renderRings(wheel) {
    const ctx = this.rings.getContext('2d');
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    ctx.clearRect(0, 0, this.size, this.size);
    const slots = wheel.slots;
    const levels = (wheel.occupancy ?? []).slice(0, 2);
    // One colour scale for both rings, logarithmic: a slot with 1 timer must stay visible next
    // to one with 10 000. The rings themselves are drawn empty first.
    const max = Math.max(1, ...levels.flat());
    const step = (2 * Math.PI) / slots;
    let timers = 0;
    let occupiedSlots = 0;
    for (const level of [0, 1]) {
      const { inner, outer } = this.geometry(level);
      ctx.fillStyle = EMPTY;
      arc(ctx, this.size / 2, inner, outer, 0, 2 * Math.PI);
    }
    levels.forEach((counts, level) => {
      const { inner, outer } = this.geometry(level);
      // With hundreds of slots one slot is a hairline: widen occupied ones to a few pixels.
      const width = Math.max(step, MIN_SLOT_PX / inner);
      for (let i = 0; i < slots; i++) {
        const n = counts[i] ?? 0;
        if (n === 0) continue;
        timers += n;
        occupiedSlots++;
        ctx.fillStyle = colour(LEVEL_HUES[level], Math.log1p(n) / Math.log1p(max));
        const middle = slotAngle(i, slots) + step / 2;
        arc(ctx, this.size / 2, inner, outer, middle - width / 2, middle + width / 2);
      }
    });
    return { timers, slots: occupiedSlots };
  }

  frame() {
    const w = this.wheel;
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.rings, 0, 0);
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    // Extrapolate, but never more than two seconds: a stalled reading must not spin the hands.
    const elapsed = Math.min(performance.now() - this.readAt, 2000);
    const tick = w.tick + Math.floor(elapsed / (w.tick_ms || 100));
    this.hand(ctx, 0, tick % w.slots, w.slots);
    this.hand(ctx, 1, Math.floor(tick / w.slots) % w.slots, w.slots);
    this.centre(ctx, tick);
    requestAnimationFrame(this.frame);
  }

  hand(ctx, level, slot, slots) {
    const { inner, outer } = this.geometry(level);
    const c = this.size / 2;
    const a = slotAngle(slot, slots) + Math.PI / slots; // the middle of the slot
    ctx.strokeStyle = HAND;
    ctx.lineWidth = level === 0 ? 2.5 : 1.5;
    ctx.beginPath();
    ctx.moveTo(c + Math.cos(a) * (inner - 6), c + Math.sin(a) * (inner - 6));
    ctx.lineTo(c + Math.cos(a) * (outer + 2), c + Math.sin(a) * (outer + 2));
    ctx.stroke();
  }

  centre(ctx, tick) {
    const c = this.size / 2;
    ctx.fillStyle = '#1d2330';
    ctx.font = '600 15px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(`tick ${tick}`, c, c - 9);
    ctx.fillStyle = '#6b7385';
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText(`${this.canvas.dataset.occupied} timers`, c, c + 10);
  }
}

// Slot 0 at twelve o'clock, slots advancing clockwise like a clock's hand.
function slotAngle(i, slots) {
  return -Math.PI / 2 + (i * 2 * Math.PI) / slots;
}

function arc(ctx, c, inner, outer, from, to) {
  ctx.beginPath();
  ctx.arc(c, c, outer, from, to);
  ctx.arc(c, c, inner, to, from, true);
  ctx.closePath();
  ctx.fill();
}

// Light to saturated along one hue as `t` goes from 0 to 1.
function colour(hue, t) {
  return `hsl(${hue} ${55 + 30 * t}% ${78 - 43 * t}%)`;
}
