// An SVG line chart for `cuda-matmul bench --svg`: throughput by matrix size, one line per kernel/backend,
// labelled axes (the y axis's labels past the highest point; the x axis logarithmic, and saying so), a legend, and
// a line under the title naming where and when it was measured. Plain SVG 1.1 with no scripts or external resources, so it opens in any browser.

export interface Series {
  name: string;
  /** [size (n of an n³ product), TFLOP/s] */
  points: [number, number][];
}

const WIDTH = 760;
const HEIGHT = 440;
const MARGIN = { left: 70, right: 190, top: 40, bottom: 60 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Round tick values from 0 to the first at or past max: about five of them, at 1, 2 or 5 × 10^k. */
function ticks(max: number): number[] {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) ?? power * 10;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => +(i * step).toPrecision(12));
}

/** `subtitle`: where and when (the machine, the date), under the title. */
export function lineChart(title: string, subtitle: string, series: Series[]): string {
  const sizes = [...new Set(series.flatMap((s) => s.points.map(([size]) => size)))].sort((a, b) => a - b);
  const yTicks = ticks(Math.max(1e-9, ...series.flatMap((s) => s.points.map(([, y]) => y))));
  const yMax = yTicks[yTicks.length - 1];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  // Sizes on a log scale (they usually double), evenly spread when there is one.
  const [lo, hi] = [Math.log2(sizes[0] ?? 1), Math.log2(sizes[sizes.length - 1] ?? 1)];
  const x = (size: number) => MARGIN.left + (hi === lo ? plotW / 2 : ((Math.log2(size) - lo) / (hi - lo)) * plotW);
  const y = (value: number) => MARGIN.top + plotH - (value / yMax) * plotH;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="13">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="20" font-size="16" font-weight="bold">${escape(title)}</text>`,
    `<text x="${MARGIN.left}" y="36" font-size="11" fill="#555">${escape(subtitle)}</text>`,
  ];
  for (const tick of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`);
  }
  for (const size of sizes) {
    parts.push(`<line x1="${x(size)}" x2="${x(size)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 5}" stroke="#333"/>`);
    parts.push(`<text x="${x(size)}" y="${MARGIN.top + plotH + 20}" text-anchor="middle">${size}³</text>`);
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">matrix size n (n×n times n×n), logarithmic scale</text>`,
    `<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">TFLOP/s (higher is better)</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const points = [...s.points].sort((a, b) => a[0] - b[0]);
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2.5" points="${points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ')}"/>`);
    for (const [px, py] of points) parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3.5" fill="${colour}"/>`);
    const ly = MARGIN.top + 10 + i * 22;
    parts.push(`<line x1="${WIDTH - MARGIN.right + 20}" x2="${WIDTH - MARGIN.right + 44}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="3"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right + 50}" y="${ly + 4}">${escape(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
