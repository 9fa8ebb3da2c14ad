// The inspector: the journal of runs, live; a run's request, match and timeline; the
// conversations of threads; the scenarios and their problems; controls per test id.
// Every call goes to the admin API of the page's own origin, with the token the page
// keeps for its tab when the mock requires one.

import { drawTimeline, laneOf, subagentNote, subagentSpans } from './timeline.js';

const $ = (sel, root = document) => root.querySelector(sel);
const TOKEN_KEY = 'agui-mock-admin-token';
const ROW_HEIGHT = 28;

/** Makes an element: h('p', {class: 'x'}, 'text', child). */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
}

const json = (v) => JSON.stringify(v, null, 2);

// ---- the admin API ----

let tokenAsked = null;

/** Asks for the admin token once, however many calls were refused meanwhile. */
function askToken() {
  tokenAsked ??= new Promise((resolve) => {
    const dialog = $('#token-dialog');
    dialog.addEventListener('cancel', (e) => e.preventDefault(), { once: true }); // nothing works without it
    $('#token-form').addEventListener('submit', () => {
      sessionStorage.setItem(TOKEN_KEY, $('#token-input').value);
      tokenAsked = null;
      resolve();
    }, { once: true });
    dialog.showModal();
  });
  return tokenAsked;
}

function authHeaders(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

/** Calls the admin API: resolves with the answer; asks for the token on 401 and retries. */
async function admin(method, path, { body, testId } = {}) {
  for (;;) {
    const headers = authHeaders(body === undefined ? {} : { 'Content-Type': 'application/json' });
    if (testId !== undefined && testId !== '') headers['X-Test-Id'] = testId;
    const res = await fetch(`/_mock${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status === 401) {
      await askToken();
      continue;
    }
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = text; }
    if (!res.ok) throw new Error(data?.message ? `${res.status} ${data.error}: ${data.message}` : `${res.status}`);
    return data;
  }
}

// ---- the journal, kept in the page ----

/** Every row: a journal entry, or a run still streaming. Keyed by request id, or seq. */
const rows = [];
const byKey = new Map();
const keyOf = (e) => e.requestId || `seq:${e.seq}`;
let journalEvents = 0;
let status = null;

function upsert(entry, final) {
  const key = keyOf(entry);
  const row = byKey.get(key);
  if (row) {
    if (row.seq && !final) return; // a finished run stays finished
    Object.assign(row, entry, { live: !final });
  } else {
    const created = { ...entry, live: !final };
    byKey.set(key, created);
    rows.push(created);
  }
  changed();
}

function progress(p) {
  const row = byKey.get(p.requestId);
  if (!row || !row.live) return;
  row.events = p.events;
  row.pausedAt = p.pausedAt || '';
  changed();
}

/** Reads the whole journal, following its pages (GET /_mock/journal answers 1000 entries at a time). */
async function readJournal() {
  const entries = [];
  for (let after = 0; ;) {
    const page = await admin('GET', `/journal?after=${after}`);
    for (const e of page.entries) entries.push(e);
    if (page.next === undefined) return entries;
    after = page.next;
  }
}

async function loadJournal() {
  const entries = await readJournal();
  const live = rows.filter((r) => r.live);
  rows.length = 0;
  byKey.clear();
  for (const e of entries) {
    const r = { ...e, live: false };
    rows.push(r);
    byKey.set(keyOf(r), r);
  }
  for (const r of live) if (!byKey.has(keyOf(r))) { rows.push(r); byKey.set(keyOf(r), r); }
  changed();
}

let pending = false;
const listeners = new Set();
/** Schedules one redraw per frame, however many changes arrive. */
function changed() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    stale = true;
    for (const fn of listeners) fn();
  });
}

// ---- the journal stream ----

async function subscribe() {
  const conn = $('#connection');
  for (;;) {
    try {
      const res = await fetch('/_mock/journal/stream', { headers: authHeaders() });
      if (res.status === 401) { await askToken(); continue; }
      if (!res.ok) throw new Error(`status ${res.status}`);
      conn.textContent = 'live';
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let kind = 'message', data = '';
          for (const line of frame.split('\n')) {
            if (line.startsWith('event: ')) kind = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (data) await onChange(kind, JSON.parse(data));
        }
      }
    } catch (err) {
      conn.textContent = `disconnected (${err.message}); retrying`;
    }
    conn.textContent = 'reconnecting…';
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function onChange(kind, data) {
  switch (kind) {
    case 'ready':
      journalEvents = data.journalEvents;
      setStatus(data.status);
      await Promise.all([loadJournal(), loadScenarios()]);
      document.body.dataset.live = 'true';
      break;
    case 'started': upsert(data, false); break;
    case 'progress': progress(data); break;
    case 'entry': upsert(data, true); break;
    case 'reload': setStatus(data); await loadScenarios(); break;
    case 'resync': await Promise.all([loadJournal(), loadScenarios()]); break;
  }
}

// ---- views ----

const views = ['runs', 'run', 'threads', 'scenarios', 'controls'];

function route() {
  $('#tip').hidden = true;
  const [view = 'runs', ...args] = location.hash.replace(/^#\/?/, '').split('/');
  const name = views.includes(view) ? view : 'runs';
  for (const v of views) $(`#view-${v}`).hidden = v !== name;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === (name === 'run' ? 'runs' : name)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.body.dataset.view = name;
  if (name === 'run') showRun(Number(args[0]));
  if (name === 'threads') renderThreads(args.map(decodeURIComponent));
  if (name === 'runs') { stale = true; renderRuns(); }
}

// ---- the runs list: only the rows in view are in the document ----

const filters = { testId: '', scenario: '', status: '', text: '' };
let shown = [];
let active = 0;

function statusClass(r) {
  if (r.live) return 'st-live';
  return r.status >= 400 || (r.outcome && !['success', 'interrupt'].includes(r.outcome)) ? 'st-bad' : 'st-ok';
}

/** A run's outcome, and the interrupts it left waiting for an answer, which a LangGraph-dialect run leaves on success. */
function outcomeText(r) {
  if (!r.outcome) return '';
  return r.awaiting ? `${r.outcome} · awaiting ${r.awaiting}` : r.outcome;
}

function matches(r) {
  if (filters.testId && r.testId !== filters.testId) return false;
  if (filters.scenario && r.scenario !== filters.scenario) return false;
  const s = filters.status;
  if (s === 'live' && !r.live) return false;
  if (/^\dxx$/.test(s) && (r.live || String(r.status)[0] !== s[0])) return false;
  if (filters.text) {
    const hay = `${r.path} ${r.threadId ?? ''} ${r.runId ?? ''} ${r.scenario ?? ''} ${r.error ?? ''} ${r.reason ?? ''} ${outcomeText(r)} ${r.testId ?? ''}`.toLowerCase();
    if (!hay.includes(filters.text.toLowerCase())) return false;
  }
  return true;
}

let stale = true; // the rows or the filters changed since shown was computed

function renderRuns() {
  if ($('#view-runs').hidden) return;
  if (stale) {
    shown = rows.filter(matches).reverse();
    stale = false;
  }
  // an empty journal is a first visit: say how to make the first run rather than show
  // an empty grid
  $('#runs-empty').hidden = rows.length > 0;
  const scroller = $('#runs-scroller');
  $('#runs-spacer').style.height = `${shown.length * ROW_HEIGHT}px`;
  $('#runs-grid').setAttribute('aria-rowcount', shown.length + 1);
  $('#run-count').textContent = `${shown.length} of ${rows.length}`;
  active = Math.min(active, Math.max(0, shown.length - 1));
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - 5);
  const last = Math.min(shown.length, first + Math.ceil(scroller.clientHeight / ROW_HEIGHT) + 10);
  const body = $('#runs-rows');
  body.replaceChildren(...shown.slice(first, last).map((r, k) => runRow(r, first + k)));
  // the selected row, when it is drawn, is what a screen reader announces in the list
  if ($('#runs-active')) scroller.setAttribute('aria-activedescendant', 'runs-active');
  else scroller.removeAttribute('aria-activedescendant');
  updateDatalists();
}

function runRow(r, i) {
  const time = new Date(r.time).toLocaleTimeString(undefined, { hour12: false }) + `.${String(new Date(r.time).getMilliseconds()).padStart(3, '0')}`;
  const statusText = r.live ? (r.pausedAt ? `paused ${r.pausedAt}` : 'streaming') : String(r.status);
  const open = r.seq && !r.live ? h('a', { href: `#/run/${r.seq}`, tabindex: -1 }, time) : h('span', {}, time);
  const row = h('div', { class: `row${i === active ? ' active' : ''}`, id: i === active ? 'runs-active' : undefined, role: 'row', 'aria-rowindex': i + 2, 'data-key': keyOf(r), 'data-seq': r.seq ?? '',
    'aria-selected': i === active ? 'true' : 'false' },
  h('span', { role: 'gridcell' }, open),
  h('span', { role: 'gridcell', class: 'c-test' }, r.testId || '—'),
  h('span', { role: 'gridcell', class: 'c-route' }, `${r.method === 'POST' ? '' : r.method + ' '}${r.path}`),
  h('span', { role: 'gridcell', class: 'c-thread', title: r.threadId }, r.threadId || '—'),
  h('span', { role: 'gridcell', class: 'c-scenario' }, r.scenario || (r.error ? r.error : '—')),
  h('span', { role: 'gridcell', class: `c-status ${statusClass(r)}` }, statusText),
  h('span', { role: 'gridcell', class: 'c-outcome' }, outcomeText(r)),
  h('span', { role: 'gridcell', class: 'c-events' }, r.events ?? 0),
  h('span', { role: 'gridcell', class: 'c-duration' }, r.live ? '…' : `${r.durationMs} ms`));
  row.style.top = `${i * ROW_HEIGHT}px`; // through the CSSOM: the page's policy refuses style attributes
  return row;
}

function moveActive(to) {
  active = Math.max(0, Math.min(shown.length - 1, to));
  const scroller = $('#runs-scroller');
  const y = active * ROW_HEIGHT;
  if (y < scroller.scrollTop) scroller.scrollTop = y;
  else if (y + ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = y + ROW_HEIGHT - scroller.clientHeight;
  renderRuns();
}

function setupRuns() {
  const url = `${location.origin}/agui/chat`;
  $('#runs-empty-url').textContent = url;
  $('#runs-empty-curl').textContent = `curl -N ${url} -H 'Content-Type: application/json' \\
  -d '{"threadId": "thread-1", "runId": "run-1", "messages": [{"id": "m1", "role": "user", "content": "hello"}]}'`;
  const form = $('#run-filters');
  form.addEventListener('input', () => {
    for (const k of Object.keys(filters)) filters[k] = form.elements[k].value.trim();
    active = 0;
    stale = true;
    renderRuns();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  const scroller = $('#runs-scroller');
  scroller.addEventListener('scroll', () => requestAnimationFrame(renderRuns), { passive: true });
  scroller.addEventListener('keydown', (e) => {
    const page = Math.floor(scroller.clientHeight / ROW_HEIGHT);
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, PageDown: active + page, PageUp: active - page, Home: 0, End: shown.length - 1 };
    if (e.key in moves) { e.preventDefault(); moveActive(moves[e.key]); }
    if (e.key === 'Enter' && shown[active]?.seq) location.hash = `#/run/${shown[active].seq}`;
  });
  scroller.addEventListener('click', (e) => {
    const row = e.target.closest('.row');
    if (row?.dataset.seq && !e.target.closest('a')) location.hash = `#/run/${row.dataset.seq}`;
  });
  listeners.add(renderRuns);
}

function updateDatalists() {
  const fill = (id, values) => {
    const list = $(id);
    const want = [...new Set(values)].filter(Boolean).sort();
    if (list.dataset.values === want.join('\n')) return;
    list.dataset.values = want.join('\n');
    list.replaceChildren(...want.map((v) => h('option', { value: v })));
  };
  fill('#test-ids', rows.map((r) => r.testId));
  fill('#scenario-ids', scenarios.map((s) => s.id));
}

// ---- a run ----

async function showRun(seq) {
  const body = $('#run-body');
  $('#run-title').textContent = `Run ${seq}`;
  body.replaceChildren(h('p', {}, 'loading…'));
  let d;
  try {
    d = await admin('GET', `/journal/${seq}`);
  } catch (err) {
    body.replaceChildren(h('p', { role: 'alert' }, `This run cannot be shown: ${err.message}`));
    return;
  }
  const e = d.entry;
  $('#run-title').textContent = `Run ${e.seq}: ${e.method} ${e.path} → ${e.status}`;
  const req = e.request && typeof e.request === 'object' ? e.request : null;
  const facts = h('dl', { class: 'facts' },
    ...[['Time', new Date(e.time).toISOString()], ['Test id', e.testId || '—'], ['Thread', e.threadId], ['Run', e.runId],
      ['Scenario', e.scenario ? `${e.scenario} (${e.selection || 'chosen'})${d.source ? ' at ' + d.source : ''}` : '—'],
      ['Status', e.status], ['Outcome', e.outcome], ['Awaiting answers', e.awaiting], ['Events', e.events ?? 0], ['Duration', `${e.durationMs} ms`],
      ['Error', e.error ? `${e.error}: ${e.reason}` : e.reason], ['Fault that struck', d.fault], ['Request id', e.requestId]]
      .filter(([, v]) => v !== undefined && v !== '' && v !== null)
      .flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-fact': k }, v)]));
  const parts = [facts, whyMatched(d)];
  if (d.pauses.length) {
    parts.push(h('h3', {}, 'Breakpoints that struck'),
      h('ul', {}, d.pauses.map((p) => h('li', {}, `${p.breakpoint}: paused at ${Math.round(p.atMs)} ms for ${Math.round(p.ms)} ms`))));
  }
  parts.push(h('h3', {}, 'The request as sent'));
  if (req) {
    for (const k of ['messages', 'tools', 'state', 'forwardedProps', 'resume', 'context']) {
      if (req[k] === undefined) continue;
      parts.push(h('details', { open: k === 'messages' || k === 'resume' || undefined, 'data-part': k }, h('summary', {}, k), h('pre', {}, json(req[k]))));
    }
  } else {
    parts.push(h('pre', {}, e.request === undefined ? '(no body)' : String(e.request)));
  }
  parts.push(h('h3', { id: 'timeline-title' }, `Timeline: ${d.events.length} events`));
  if (!d.kept && e.events) {
    parts.push(h('p', { class: 'muted', 'data-note': 'gone' }, `The events of this run are no longer kept: ${d.gone || `the journal keeps those of the latest ${journalEvents} runs (--journal-events)`}.`));
  }
  if (d.clipped) {
    parts.push(h('p', { class: 'muted', 'data-note': 'clipped' }, `Not every event of this run is shown: ${d.clipped}.`));
  }
  if (d.events.length) {
    const list = h('ol', { class: 'events', 'aria-label': 'Raw events' },
      d.events.map((x, i) => h('li', { id: `ev-${i}`, tabindex: -1 }, `${x.atMs.toFixed(1).padStart(8)} ms  ${JSON.stringify(x.event)}`)));
    const tip = $('#tip');
    const spans = subagentSpans(d.events);
    const svg = drawTimeline(d.events, d.pauses, (i, mark) => {
      const x = d.events[i];
      const note = subagentNote(x.event, spans);
      tip.textContent = `#${i + 1} at ${x.atMs.toFixed(1)} ms · ${laneOf(x.event)}${note ? ` · ${note}` : ''}\n${json(x.event)}`;
      const box = mark.getBoundingClientRect();
      tip.style.left = `${Math.min(box.left, innerWidth - 500)}px`;
      tip.style.top = `${box.bottom + 8}px`;
      tip.hidden = false;
      for (const li of list.querySelectorAll('.current')) li.classList.remove('current');
      const li = list.children[i];
      li.classList.add('current');
      li.scrollIntoView({ block: 'nearest' });
    });
    svg.addEventListener('mouseleave', () => { tip.hidden = true; });
    svg.addEventListener('focusout', () => { tip.hidden = true; });
    parts.push(h('div', { class: 'timeline-wrap' }, svg, list));
  }
  body.replaceChildren(...parts);
}

/** The nearest scenarios that missed a request, and why each did, under a title. */
function nearMisses(title, candidates) {
  return h('section', { 'aria-labelledby': 'why-title', class: 'near-miss' }, h('h3', { id: 'why-title' }, title),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Scenario'), h('th', {}, 'Source'), h('th', {}, 'Why not'))),
      h('tbody', {}, candidates.map((c) => h('tr', {}, h('td', {}, c.id), h('td', {}, c.source), h('td', {}, h('ul', {}, c.reasons.map((r) => h('li', {}, r)))))))));
}

function whyMatched(d) {
  const e = d.entry;
  if (e.error === 'no_scenario') return nearMisses('No scenario matched: the nearest misses', e.details?.candidates ?? []);
  if (e.nearMisses?.length) return nearMisses(`The built-in ${e.scenario} answered: none of your scenarios matched. The nearest`, e.nearMisses);
  if (e.selection === 'continued') {
    return h('p', { class: 'why' }, `This run continued the thread's paused conversation of ${e.scenario}: its answers chose the branch that played.`);
  }
  if (!d.match) return h('p', { class: 'why muted' }, e.scenario ? '' : 'No scenario played this request.');
  const rowsOf = d.match.map((c) => h('tr', { class: c.held ? 'held' : 'missed' }, h('td', {}, c.criterion), h('td', {}, c.want),
    h('td', {}, c.held ? '✓ held' : '✗ missed'), h('td', {}, (c.reasons ?? []).join('; '))));
  return h('section', { 'aria-labelledby': 'why-title', class: 'match' },
    h('h3', { id: 'why-title' }, e.selection === 'forced' ? `Forced to ${e.scenario}; its match criteria, checked against this request` : `Why ${e.scenario} answered`),
    d.match.length ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Criterion'), h('th', {}, 'Wants'), h('th', {}, 'Held'), h('th', {}, 'Why not'))), h('tbody', {}, rowsOf))
      : h('p', {}, 'Its match gives no criteria: it answers every request that reaches it.'));
}

// ---- threads ----

function threadKey(r) { return `${r.testId || ''}/${r.threadId}`; }

async function renderThreads([testId, threadId] = []) {
  const list = $('#thread-list');
  const groups = new Map();
  for (const r of rows) if (r.threadId && r.seq && r.path !== '/agui/history') {
    const k = threadKey(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const keys = [...groups.keys()].reverse();
  const current = threadId !== undefined ? `${testId}/${threadId}` : '';
  list.replaceChildren(...keys.map((k) => {
    const runs = groups.get(k);
    const [t, ...th] = k.split('/');
    return h('li', {}, h('button', { type: 'button', 'aria-pressed': k === current ? 'true' : 'false', 'data-thread': th.join('/'),
      onclick: () => { location.hash = `#/threads/${encodeURIComponent(t)}/${encodeURIComponent(th.join('/'))}`; } },
    `${th.join('/')} `, h('span', { class: 'muted' }, `${t ? t + ' · ' : ''}${runs.length} run${runs.length === 1 ? '' : 's'}`)));
  }));
  const body = $('#thread-body');
  if (!current || !groups.has(current)) { body.replaceChildren(h('p', { class: 'muted' }, 'Choose a thread to read its runs as one conversation.')); return; }
  const details = await Promise.all(groups.get(current).map((r) => admin('GET', `/journal/${r.seq}`).catch(() => ({ entry: r, events: [] }))));
  body.replaceChildren(h('h3', {}, `Thread ${threadId}`), ...details.map(turn));
}

function turn(d) {
  const e = d.entry;
  const req = e.request && typeof e.request === 'object' ? e.request : {};
  const lastUser = [...(req.messages ?? [])].reverse().find((m) => m.role === 'user');
  const toolResults = (req.messages ?? []).filter((m) => m.role === 'tool');
  // the server says which events carry a text message's deltas, whatever their form
  const said = d.events.filter((x) => x.stream?.family === 'text').map((x) => x.event[x.stream.delta] ?? '').join('');
  const interrupts = d.interrupts ?? [];
  const tools = d.events.filter((x) => x.event.type === 'TOOL_CALL_START').map((x) => x.event.toolCallName);
  return h('article', { class: `turn${interrupts.length ? ' interrupt' : ''}`, 'data-seq': e.seq },
    h('h3', {}, h('a', { href: `#/run/${e.seq}` }, `Run ${e.seq}`), ` · ${e.scenario || e.error || e.status} · ${e.selection || ''} · ${outcomeText(e) || e.status}`),
    req.resume ? h('div', { class: 'bubble answer' }, h('strong', {}, 'Answered: '), json(req.resume)) : null,
    toolResults.length && e.selection === 'continued' ? h('div', { class: 'bubble answer' }, h('strong', {}, 'Tool results: '), toolResults.map((m) => m.content).join(' · ')) : null,
    !req.resume && lastUser ? h('div', { class: 'bubble user' }, h('strong', {}, 'User: '), typeof lastUser.content === 'string' ? lastUser.content : json(lastUser.content)) : null,
    e.selection === 'continued' ? h('p', { class: 'muted branch' }, `The answer chose the branch that played: ${said ? '“' + said.slice(0, 120) + '”' : (d.events.length + ' events')}`) : null,
    said ? h('div', { class: 'bubble agent' }, h('strong', {}, 'Agent: '), said) : null,
    tools.length ? h('p', {}, `Tool calls: ${tools.join(', ')}`) : null,
    interrupts.length ? h('div', { class: 'bubble raised' }, h('strong', {}, `Interrupts raised (${interrupts.length}): `), interrupts.map((i) => `${i.id}${i.reason ? ' (' + i.reason + ')' : ''}`).join(', ')) : null,
    e.error ? h('p', { class: 'st-bad' }, `${e.error}: ${e.reason}`) : null);
}

// ---- scenarios ----

let scenarios = [];

function setStatus(s) {
  status = s;
  renderProblems();
}

function renderProblems() {
  const box = $('#problems');
  if (!status) return;
  const problems = status.errors ?? [];
  box.replaceChildren(problems.length
    ? h('div', { class: 'problems', role: 'alert' }, h('h3', {}, `The last reload was rejected: ${problems.length} problem${problems.length === 1 ? '' : 's'} (the previous set is still served)`),
      problems.map((p) => h('p', { class: 'problem' }, `${p.file}:${p.line}:${p.column}: ${p.message}${p.hint ? ' (' + p.hint + ')' : ''}`)))
    : h('p', { class: 'muted reload-ok' }, `${status.scenarios} scenarios loaded, ${status.reloads} reloads; the last load had no problems.`));
}

async function loadScenarios() {
  const data = await admin('GET', '/scenarios');
  scenarios = data.scenarios;
  if (data.errors) setStatus({ ...(status ?? {}), errors: data.errors });
  const list = $('#scenario-list');
  list.replaceChildren(...scenarios.map((s) => h('article', { class: 'scenario', 'data-id': s.id },
    h('h3', {}, h('code', {}, s.id), ' ', h('span', { class: 'muted' }, `${s.source}${s.priority ? ' · priority ' + s.priority : ''}${s.runtime ? ' · added at run time' : ''}`)),
    s.description ? h('p', {}, s.description) : null,
    s.broken ? h('p', { class: 'st-bad' }, `Deliberately broken: ${s.broken}`) : null,
    (s.examples ?? []).length ? h('ul', { class: 'plain' }, s.examples.map((ex, i) => h('li', {},
      h('button', { type: 'button', 'data-play': `${s.id}#${i}`, onclick: () => play(s, ex) }, `Play example ${i + 1}`), ' ',
      h('code', {}, `${ex.route || ''} ${ex.message ? '“' + ex.message + '”' : ''}`)))) : null)));
  for (const sel of ['#force-scenario', '#bp-scenario']) {
    const el = $(sel);
    const keep = el.value;
    el.replaceChildren(...(sel === '#bp-scenario' ? [h('option', { value: '' }, 'any')] : []), ...scenarios.map((s) => h('option', { value: s.id }, s.id)));
    el.value = keep;
  }
  updateDatalists();
}

/** A random UUID, as clients give ids; crypto.randomUUID is missing outside secure contexts (a mock on http://mock:8000). */
function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Plays a scenario's example as a client would, then opens its run. */
async function play(s, ex) {
  // The server builds the example's run input (its tools, context, state and
  // forwardedProps); each play is a thread and a run of its own.
  const input = { ...ex.input, threadId: uuid(), runId: uuid() };
  const route = ex.route || '/agui/chat'; // the loader gives an example its scenario's route
  const res = await fetch(route, { method: 'POST', headers: { ...(ex.headers ?? {}), ...authHeaders(), 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Test-Id': 'inspector', 'X-Agui-Mock-Scenario': s.id }, body: JSON.stringify(input) });
  const requestId = res.headers.get('X-Request-Id');
  const said = $('#play-result');
  said.textContent = `Playing ${s.id}…`;
  const answer = await res.text();
  if (!res.ok) {
    let why = answer;
    try { why = JSON.parse(answer).message; } catch { /* not JSON */ }
    said.textContent = `The example of ${s.id} was answered ${res.status}: ${why}`;
  }
  for (let i = 0; i < 100; i++) {
    const row = byKey.get(requestId);
    if (row?.seq && !row.live) { said.textContent = ''; location.hash = `#/run/${row.seq}`; return; }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---- controls ----

const breakpoints = new Map();

function setupControls() {
  const result = $('#control-result');
  const testId = () => $('#control-test').value.trim();
  const act = (form, call) => $(form).addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = e.target.elements;
    try {
      result.textContent = await call(f);
      result.className = 'st-ok';
    } catch (err) {
      result.textContent = err.message;
      result.className = 'st-bad';
    }
  });
  act('#form-force', async (f) => {
    const r = await admin('POST', '/force', { body: { scenario: f.scenario.value, times: Number(f.times.value) }, testId: testId() });
    return `Forced ${r.scenario} for ${r.times || 'every'} run(s) of ${testId() || 'the requests without a test id'}.`;
  });
  act('#form-fault', async (f) => {
    const body = { kind: f.kind.value.trim() };
    if (f.after.value) body.after = Number(f.after.value);
    if (f.status.value) body.status = Number(f.status.value);
    if (f.delay.value.trim()) body.delay = f.delay.value.trim();
    await admin('POST', '/faults', { body, testId: testId() });
    return `Queued a ${body.kind} fault for the next run of ${testId() || 'the requests without a test id'}.`;
  });
  act('#form-speed', async (f) => {
    const r = await admin('POST', '/speed', { body: { speed: Number(f.speed.value) }, testId: testId() });
    return `Runs of ${testId() || 'the requests without a test id'} play at speed ${r.speed}.`;
  });
  act('#form-breakpoint', async (f) => {
    const body = { event: Number(f.event.value) };
    if (f.scenario.value) body.scenario = f.scenario.value;
    const bp = await admin('POST', '/breakpoints', { body, testId: testId() });
    breakpoints.set(bp.id, bp);
    renderBreakpoints();
    return `Breakpoint ${bp.id} armed at event ${bp.event}.`;
  });
  act('#form-reset', async () => {
    await admin('POST', '/reset', { testId: testId() });
    breakpoints.clear();
    renderBreakpoints();
    await loadJournal();
    return `Reset ${testId() || 'everything'}.`;
  });
  listeners.add(renderBreakpoints);
}

/** The page's breakpoints, and every run waiting at one, each with its release. */
function renderBreakpoints() {
  for (const r of rows) if (r.live && r.pausedAt && !breakpoints.has(r.pausedAt)) breakpoints.set(r.pausedAt, { id: r.pausedAt });
  const paused = new Set(rows.filter((r) => r.live && r.pausedAt).map((r) => r.pausedAt));
  $('#breakpoints').replaceChildren(...[...breakpoints.values()].map((bp) => h('li', { 'data-bp': bp.id },
    `${bp.id}${bp.scenario ? ' · ' + bp.scenario : ''}${bp.event !== undefined ? ' · event ' + bp.event : ''} · `,
    h('span', { class: paused.has(bp.id) ? 'st-live' : 'muted' }, paused.has(bp.id) ? 'paused' : (bp.released ? 'released' : 'armed')), ' ',
    h('button', { type: 'button', disabled: bp.released || undefined, onclick: async () => {
      const snap = await admin('POST', `/breakpoints/${bp.id}/release`);
      breakpoints.set(bp.id, { ...bp, ...snap });
      $('#control-result').textContent = `Released ${bp.id}.`;
      renderBreakpoints();
    } }, `Release ${bp.id}`))));
}

async function loadFaultKinds() {
  try {
    const schema = await admin('GET', '/schema');
    const kinds = new Set();
    (function walk(v) {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { if (k === 'faultKind' && x.enum) x.enum.forEach((e) => kinds.add(e)); walk(x); }
    })(schema);
    for (const k of ['status', 'slowStart', 'split']) kinds.add(k);
    $('#fault-kinds').replaceChildren(...[...kinds].sort().map((k) => h('option', { value: k })));
  } catch { /* the kinds are a convenience */ }
}

// ---- start ----

setupRuns();
setupControls();
addEventListener('hashchange', route);
addEventListener('scroll', () => { $('#tip').hidden = true; }, { passive: true });
listeners.add(() => { if (!$('#view-threads').hidden && !location.hash.includes('/threads/')) renderThreads(); });
route();
subscribe();
loadFaultKinds();
document.body.dataset.ready = 'true';
