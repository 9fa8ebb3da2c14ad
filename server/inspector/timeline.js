// The timeline of a run as SVG: one mark per event on a time axis, in lanes by kind,
// with breakpoint pauses shaded, long gaps bracketed, and each subagent invocation a
// bar from its start to its end.

const NS = 'http://www.w3.org/2000/svg';

/** The lanes, top to bottom. */
export const LANES = ['text', 'reasoning', 'tools', 'state', 'activity', 'interrupts', 'subagents', 'lifecycle'];

/** The lane of an AG-UI event. */
export function laneOf(ev) {
  const t = ev.type || '';
  if (t === 'RUN_FINISHED' && ev.outcome && ev.outcome.type === 'interrupt') return 'interrupts';
  if (t === 'CUSTOM' && /interrupt/i.test(ev.name || '')) return 'interrupts';
  if (t.startsWith('TEXT_MESSAGE')) return 'text';
  if (t.startsWith('REASONING') || t.startsWith('THINKING')) return 'reasoning';
  if (t.startsWith('TOOL_CALL')) return 'tools';
  if (t.startsWith('SUBAGENT_')) return 'subagents';
  if (t.startsWith('STATE') || t === 'MESSAGES_SNAPSHOT') return 'state';
  if (t.startsWith('ACTIVITY') || t === 'CUSTOM' || t === 'RAW') return 'activity';
  return 'lifecycle';
}

/**
 * The subagent invocations of a run's events ([{atMs, event}]), in order of start:
 * [{id, name, parent, depth, startMs, endMs, ending}], where ending is how the
 * invocation's segment ended: success, suspended, error, or open when the run ended
 * without saying.
 */
export function subagentSpans(events) {
  const spans = [], open = new Map();
  for (const { atMs, event: ev } of events) {
    if (ev.type === 'SUBAGENT_STARTED') {
      const parent = open.get(ev.parentSubagentRunId);
      const span = { id: ev.subagentRunId, name: ev.name, parent: ev.parentSubagentRunId, depth: parent ? parent.depth + 1 : 0, startMs: atMs, endMs: atMs, ending: 'open' };
      spans.push(span);
      open.set(ev.subagentRunId, span);
    } else if (ev.type === 'SUBAGENT_FINISHED' || ev.type === 'SUBAGENT_ERROR') {
      const span = open.get(ev.subagentRunId);
      if (!span) continue;
      span.endMs = atMs;
      span.ending = ev.type === 'SUBAGENT_ERROR' ? 'error' : (ev.outcome && ev.outcome.type) || 'success';
      open.delete(ev.subagentRunId);
    }
  }
  const last = events.length ? events[events.length - 1].atMs : 0;
  for (const span of open.values()) span.endMs = last;
  return spans;
}

/** What an event says of the subagent it belongs to, by the invocations' spans; '' for none. */
export function subagentNote(ev, spans) {
  if (!ev.subagentRunId) return '';
  const span = spans.find((s) => s.id === ev.subagentRunId);
  const name = span ? span.name : `${ev.subagentRunId} (unannounced)`;
  return ev.type.startsWith('SUBAGENT_') ? `subagent ${name}` : `in subagent ${name}`;
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
  const row = top + LANES.indexOf('subagents') * laneH;
  for (const span of subagentSpans(events)) {
    const y = row + 3 + Math.min(span.depth, 3) * 4;
    const x1 = x(span.startMs), x2 = Math.max(x(span.endMs), x1 + 4);
    const bar = el('g', { class: `subagent-span ending-${span.ending}`, role: 'img',
      'aria-label': `subagent ${span.name} from ${fmt(span.startMs)} to ${fmt(span.endMs)}: ${span.ending}` }, svg);
    el('rect', { x: x1, y, width: x2 - x1, height: laneH - 14, rx: 2 }, bar);
    el('text', { class: 'subagent-label', x: x1 + 3, y: y + laneH - 17 }, bar).textContent = span.name;
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
