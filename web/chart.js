// A small hand-drawn time-series chart: a few named lines over a sliding time window.

export const PAD = { left: 44, right: 10, top: 22, bottom: 18 };
const MIN_WINDOW_MS = 10 * 1000;

export class LineChart {
  /**
   * series: [{ key, label, color }]. The x axis spans the history there is, from ten seconds up
   * to windowMs, so a freshly opened page does not squeeze its first seconds into a corner.
   */
  constructor(canvas, { series, windowMs = 5 * 60 * 1000 }) {
    this.canvas = canvas;
    this.series = series;
    this.maxWindowMs = windowMs;
    this.points = []; // { t, values: { key: number } }, oldest first
    Object.assign(this, sharpContext(canvas));
  }

  push(t, values) {
    this.points.push({ t, values });
    while (this.points[0].t < t - this.maxWindowMs) this.points.shift();
    this.draw(t);
  }

  draw(now) {
    const { ctx, width, height } = this;
    ctx.clearRect(0, 0, width, height);
    const plotW = width - PAD.left - PAD.right;
    const plotH = height - PAD.top - PAD.bottom;
    const span = Math.min(this.maxWindowMs, Math.max(MIN_WINDOW_MS, now - this.points[0].t));
    const max = niceCeiling(Math.max(1, ...this.points.flatMap((p) => Object.values(p.values))));
    const x = (t) => PAD.left + plotW * (1 - (now - t) / span);
    const y = (v) => PAD.top + plotH * (1 - v / max);

    // Grid: zero, half and max, labelled on the left.
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    drawValueGrid(ctx, width, max, y);
    ctx.textAlign = 'left';
    const ago = span < 120000 ? `${Math.round(span / 1000)} s` : `${Math.round(span / 60000)} min`;
    ctx.fillText(`${ago} ago`, PAD.left, height - PAD.bottom / 2);
    ctx.textAlign = 'right';
    ctx.fillText('now', width - PAD.right, height - PAD.bottom / 2);

    // Lines, and a legend with each series' latest value.
    let legendX = PAD.left;
    const latest = this.points.at(-1)?.values ?? {};
    for (const s of this.series) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      this.points.forEach((p, i) => {
        const v = p.values[s.key] ?? 0;
        if (i === 0) ctx.moveTo(x(p.t), y(v));
        else ctx.lineTo(x(p.t), y(v));
      });
      ctx.stroke();
      ctx.fillStyle = s.color;
      ctx.textAlign = 'left';
      const label = `${s.label} ${formatNumber(latest[s.key] ?? 0)}`;
      ctx.fillText(label, legendX, PAD.top / 2);
      legendX += ctx.measureText(label).width + 14;
    }
  }
}

/**
 * The canvas's 2D context drawing in CSS pixels at the screen's resolution, so lines stay sharp
 * on a high-density display. Returns { ctx, width, height } in CSS pixels.
 */
export function sharpContext(canvas) {
  const width = canvas.width;
  const height = canvas.height;
  const scale = window.devicePixelRatio || 1;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.width *= scale;
  canvas.height *= scale;
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  return { ctx, width, height };
}

// Round the axis maximum up to 1, 2 or 5 times a power of ten, so the labels read easily.
export function niceCeiling(v) {
  const power = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * power).find((c) => c >= v);
}

export function formatNumber(v) {
  return v >= 1000 ? `${(v / 1000).toFixed(v >= 10000 ? 0 : 1)}k` : String(Math.round(v * 10) / 10);
}

/** Horizontal lines at zero, half and `max` across the plot, labelled on the left; y(v) places them. */
export function drawValueGrid(ctx, width, max, y) {
  ctx.textAlign = 'right';
  for (const v of [0, max / 2, max]) {
    ctx.strokeStyle = '#e6e9ef';
    ctx.beginPath();
    ctx.moveTo(PAD.left, y(v));
    ctx.lineTo(width - PAD.right, y(v));
    ctx.stroke();
    ctx.fillStyle = '#6b7385';
    ctx.fillText(formatNumber(v), PAD.left - 6, y(v));
  }
}
