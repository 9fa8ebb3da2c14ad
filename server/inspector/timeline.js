// The timeline of a run as SVG: one mark per event on a time axis, in lanes by kind,
// with breakpoint pauses shaded and long gaps bracketed.

const NS = 'http://www.w3.org/2000/svg';

/** The lanes, top to bottom. */
export const LANES = ['text', 'reasoning', 'tools', 'state', 'activity', 'interrupts', 'lifecycle'];

/** The lane of an AG-UI event. */
export function laneOf(ev) {
  const t = ev.type || '';
  if (t === 'RUN_FINISHED' && ev.outcome && ev.outcome.type === 'interrupt') return 'interrupts';
  if (t === 'CUSTOM' && /interrupt/i.test(ev.name || '')) return 'interrupts';
  if (t.startsWith('TEXT_MESSAGE')) return 'text';
  if (t.startsWith('REASONING') || t.startsWith('THINKING')) return 'reasoning';
  if (t.startsWith('TOOL_CALL')) return 'tools';
  if (t.startsWith('STATE') || t === 'MESSAGES_SNAPSHOT') return 'state';
  if (t.startsWith('ACTIVITY') || t === 'CUSTOM' || t === 'RAW') return 'activity';
  return 'lifecycle';
}

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

/**
 * Draws the timeline of events ([{atMs, event}]) and pauses ([{atMs, ms, breakpoint}]).
 * onFocus(i) is called when mark i is hovered or focused, with its element.
 */
export function drawTimeline(events, pauses, onFocus) {
  const width = 900, left = 84, right = 16, laneH = 26, top = 10;
  const axisY = top + LANES.length * laneH + 4;
  const height = axisY + 40;
  const end = Math.max(1, ...events.map((e) => e.atMs), ...pauses.map((p) => p.atMs + p.ms));
  const x = (ms) => left + (ms / end) * (width - left - right);
  const svg = el('svg', { class: 'timeline', viewBox: `0 0 ${width} ${height}`, role: 'group', 'aria-label': `Timeline of ${events.length} events over ${fmt(end)}` });
  LANES.forEach((lane, i) => {
    const y = top + i * laneH + laneH / 2;
    el('line', { class: 'lane-line', x1: left, x2: width - right, y1: y, y2: y }, svg);
    el('text', { x: 4, y: y + 4 }, svg).textContent = lane;
  });
  for (const p of pauses) {
    el('rect', { class: 'pause', x: x(p.atMs), y: top, width: Math.max(2, x(p.atMs + p.ms) - x(p.atMs)), height: LANES.length * laneH }, svg);
    el('text', { x: x(p.atMs) + 2, y: top + LANES.length * laneH - 2 }, svg).textContent = `paused at ${p.breakpoint} ${fmt(p.ms)}`;
  }
  // Gaps: waits of more than a tenth of the run and 100 ms.
  const threshold = Math.max(100, end / 10);
  for (let i = 1; i < events.length; i++) {
    const gap = events[i].atMs - events[i - 1].atMs;
    if (gap < threshold) continue;
    const x1 = x(events[i - 1].atMs), x2 = x(events[i].atMs);
    el('line', { class: 'gap', x1, x2, y1: axisY - 2, y2: axisY - 2 }, svg);
    el('text', { class: 'gap-label', x: (x1 + x2) / 2 - 14, y: axisY - 5 }, svg).textContent = `+${fmt(gap)}`;
  }
  el('line', { class: 'lane-line', x1: left, x2: width - right, y1: axisY, y2: axisY }, svg);
  for (let k = 0; k <= 4; k++) {
    const ms = (end * k) / 4;
    el('line', { class: 'lane-line', x1: x(ms), x2: x(ms), y1: axisY, y2: axisY + 5 }, svg);
    el('text', { x: x(ms) - 12, y: axisY + 18 }, svg).textContent = fmt(ms);
  }
  events.forEach((e, i) => {
    const lane = laneOf(e.event);
    const y = top + LANES.indexOf(lane) * laneH + 5;
    const g = el('g', { class: 'mark', tabindex: 0, role: 'img', 'data-index': i,
      'aria-label': `event ${i + 1}: ${e.event.type} at ${fmt(e.atMs)}, ${lane} lane` }, svg);
    el('rect', { class: `lane-${lane}`, x: x(e.atMs) - 2, y, width: 4, height: laneH - 10, rx: 1 }, g);
    const show = () => onFocus(i, g);
    g.addEventListener('mouseenter', show);
    g.addEventListener('focus', show);
  });
  return svg;
}
