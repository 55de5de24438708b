// The allow/deny bar chart over time, as plain SVG (stacked bars: allow green, deny red).
export interface ChartData {
  bucketMs: number;
  start: string | null;
  buckets: { allow: number; deny: number }[];
}

const NS = 'http://www.w3.org/2000/svg';

function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

export function renderChart(data: ChartData): SVGElement {
  const W = 480;
  const H = 80;
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H + 14}`, width: W, height: H + 14, role: 'img', 'aria-label': 'allows and denies over time', id: 'chart' });
  const n = data.buckets.length;
  if (n === 0 || !data.start) {
    svg.append(svgEl('text', { x: 4, y: 14, class: 'muted' }, 'no decisions'));
    return svg;
  }
  const max = Math.max(1, ...data.buckets.map((b) => b.allow + b.deny));
  const bw = W / n;
  data.buckets.forEach((b, i) => {
    const ha = (b.allow / max) * H;
    const hd = (b.deny / max) * H;
    const t = new Date(Date.parse(data.start!) + i * data.bucketMs).toISOString();
    const g = svgEl('g', {});
    g.append(svgEl('title', {}, `${t}: ${b.allow} allow, ${b.deny} deny`));
    g.append(svgEl('rect', { x: i * bw + 1, y: H - ha - hd, width: Math.max(1, bw - 2), height: hd, class: 'bar-deny' }));
    g.append(svgEl('rect', { x: i * bw + 1, y: H - ha, width: Math.max(1, bw - 2), height: ha, class: 'bar-allow' }));
    svg.append(g);
  });
  svg.append(svgEl('text', { x: 0, y: H + 12, class: 'axis' }, data.start.slice(0, 19).replace('T', ' ')));
  svg.append(svgEl('text', { x: W, y: H + 12, class: 'axis', 'text-anchor': 'end' }, `${n} × ${data.bucketMs / 1000}s`));
  return svg;
}
