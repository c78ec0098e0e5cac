import { html, type SafeHtml } from '../html.js';

export interface ChartSeries {
  label: string;
  /** CSS class that colours the bars (defined in console.css). */
  className: string;
  values: readonly number[];
}

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 40, right: 8, top: 10, bottom: 24 };

/**
 * A grouped bar chart drawn on the server as SVG: no chart script, nothing to load, readable
 * without JavaScript. The numbers are also given as a table for assistive technology.
 */
export function barChart(input: {
  title: string;
  labels: readonly string[];
  series: readonly ChartSeries[];
}): SafeHtml {
  const max = Math.max(1, ...input.series.flatMap((s) => s.values));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, input.labels.length);
  const barW = Math.max(1, (slot * 0.8) / input.series.length);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const bars = input.series.flatMap((s, si) =>
    s.values.map((v, i) => {
      const x = PAD.left + i * slot + slot * 0.1 + si * barW;
      return html`<rect
        class="${s.className}"
        x="${x.toFixed(1)}"
        y="${y(v).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${(PAD.top + plotH - y(v)).toFixed(1)}"
        ><title>${input.labels[i]}: ${v} ${s.label}</title></rect
      >`;
    }),
  );
  const every = Math.max(1, Math.ceil(input.labels.length / 8));
  const ticks = input.labels.map((label, i) =>
    i % every === 0
      ? html`<text
          class="tick"
          x="${(PAD.left + i * slot + slot / 2).toFixed(1)}"
          y="${HEIGHT - 6}"
          text-anchor="middle"
          >${label}</text
        >`
      : '',
  );
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${input.title}" preserveAspectRatio="none">
      <line
        class="axis"
        x1="${PAD.left}"
        y1="${PAD.top + plotH}"
        x2="${WIDTH - PAD.right}"
        y2="${PAD.top + plotH}"
      />
      <text class="tick" x="${PAD.left - 6}" y="${PAD.top + 8}" text-anchor="end">${max}</text>
      <text class="tick" x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end">0</text>
      ${bars} ${ticks}
    </svg>
    <figcaption>
      ${input.title}:
      ${input.series.map((s) => html`<span class="legend ${s.className}">${s.label} ${s.values.reduce((a, b) => a + b, 0)}</span> `)}
    </figcaption>
  </figure>`;
}
