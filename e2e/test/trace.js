// Event traces compared the way the AG-UI Dojo compares them: the events a client
// received, every generated id renumbered in the order it is first met, timestamps left
// out, then compared as JSON text — so the order of every object's members counts, and
// a replay must send them in the agent's order.
//
// Events are read from their JSON text with a parser of its own that keeps every member
// in the order written: JSON.parse would put integer-like keys ("0", "12") first, and
// hide a replay that sends them in another order than the agent did.

/** A parsed JSON object: its members in the order they were written. */
export class Members {
  constructor(entries = []) {
    this.entries = entries;
  }
}

/**
 * Parses JSON text into plain values, arrays and Members objects (members in written
 * order). Throws on text that is not JSON.
 */
export function parseOrdered(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${i} of ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`);
  };
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries = [];
      space();
      if (text[i] === '}') return i++, new Members(entries);
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a member name');
        const key = string();
        space();
        if (text[i++] !== ':') fail('expected :');
        entries.push([key, value()]);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return i++, new Members(entries);
        else fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const items = [];
      space();
      if (text[i] === ']') return i++, items;
      for (;;) {
        items.push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return i++, items;
        else fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    // a number or a literal: JSON.parse reads the token exactly
    const token = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i))?.[0];
    if (!token) fail('expected a value');
    i += token.length;
    return JSON.parse(token);
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const result = value();
  space();
  if (i !== text.length) fail('unexpected text after the value');
  return result;
}

/** A plain JavaScript value (objects in their own key order) as an ordered one. */
export function ordered(value) {
  if (value instanceof Members) return value;
  if (Array.isArray(value)) return value.map(ordered);
  if (value !== null && typeof value === 'object') return new Members(Object.entries(value).map(([k, v]) => [k, ordered(v)]));
  return value;
}

/** The JSON text of an ordered value, members in their order. */
export function toJSON(value) {
  if (value instanceof Members) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJSON(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJSON).join(',')}]`;
  return JSON.stringify(value);
}

/**
 * Whether a member holds a generated id (or, for a list, generated ids): `id`, a name
 * ending in Id, ID or _id (messageId, toolCallId, threadId, runId, interruptId,
 * parentMessageId, tool_call_id, run_id, …), or a list named …Ids / …_ids
 * (pendingToolCallIds, interruptIds).
 */
export function isIdMember(name) {
  return name === 'id' || /(?:Id|ID|_id|Ids|IDs|_ids)$/.test(name);
}

/**
 * The traces (a list of runs, each a list of events, ordered values) with every id
 * renumbered in the order first met, and the events' timestamps left out. An id is a
 * non-empty string value of an id member (see isIdMember) anywhere in any event; every
 * string equal to one is renumbered wherever it stands, so a state snapshot's or a RAW
 * payload's copy of a message id gets the message's number. Each run numbers the ids it
 * meets first <id1>, <id2>, …; an id an earlier run met first keeps that run's number
 * and says so, <run1.id2>. Numbering by first appearance makes two traces that differ
 * only in the ids they were given equal, and keeps the links between events and between
 * runs: which message a tool call belongs to, which call a result answers, which thread
 * every run is in; numbering each run's new ids afresh keeps a difference of one run
 * from shifting the numbers of the runs after it.
 */
export function renumber(runs) {
  const ids = new Set();
  const collect = (v) => {
    if (Array.isArray(v)) return v.forEach(collect);
    if (!(v instanceof Members)) return;
    for (const [key, x] of v.entries) {
      if (isIdMember(key)) {
        if (typeof x === 'string' && x !== '') ids.add(x);
        if (Array.isArray(x)) for (const y of x) if (typeof y === 'string' && y !== '') ids.add(y);
      }
      collect(x);
    }
  };
  runs.forEach(collect);
  const first = new Map(); // id → {run, n}: the run that met it first, and its number there
  return runs.map((events, run) => {
    let count = 0;
    const rename = (v) => {
      if (typeof v === 'string') {
        if (!ids.has(v)) return v;
        if (!first.has(v)) first.set(v, { run, n: ++count });
        const at = first.get(v);
        return at.run === run ? `<id${at.n}>` : `<run${at.run + 1}.id${at.n}>`;
      }
      if (Array.isArray(v)) return v.map(rename);
      if (v instanceof Members) return new Members(v.entries.map(([k, x]) => [k, rename(x)]));
      return v;
    };
    const dropTimestamp = (event) => (event instanceof Members ? new Members(event.entries.filter(([k]) => k !== 'timestamp')) : event);
    return events.map((event) => rename(dropTimestamp(event)));
  });
}

/** A path in an ordered value, written like a JSON Pointer. */
const at = (path) => (path.length ? `/${path.join('/')}` : '/');

/** A value for a report: its JSON, cut short when long. */
export function shortJSON(value, max = 200) {
  const text = value === undefined ? '(nothing)' : toJSON(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The first difference between two ordered values, depth first, or null when their JSON
 * texts are equal: {path, a, b} — where a and b are the values at path, or, when an
 * object's members come in another order, their member names in order.
 */
export function firstDifference(a, b, path = []) {
  if (a instanceof Members && b instanceof Members) {
    const ka = a.entries.map(([k]) => k);
    const kb = b.entries.map(([k]) => k);
    const mb = new Map(b.entries);
    for (const [k, v] of a.entries) {
      if (!mb.has(k)) return { path: at([...path, k]), a: v, b: undefined };
      const d = firstDifference(v, mb.get(k), [...path, k]);
      if (d) return d;
    }
    const ma = new Map(a.entries);
    for (const [k, v] of b.entries) if (!ma.has(k)) return { path: at([...path, k]), a: undefined, b: v };
    if (ka.join('\0') !== kb.join('\0')) return { path: at(path), a: ka, b: kb, order: true };
    return null;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], [...path, i]);
      if (d) return d;
    }
    if (a.length !== b.length) {
      const i = Math.min(a.length, b.length);
      return { path: at([...path, i]), a: a[i], b: b[i], lengths: [a.length, b.length] };
    }
    return null;
  }
  return toJSON(a) === toJSON(b) ? null : { path: at(path), a, b };
}

/** A difference of firstDifference in words, naming the two sides. */
export function describeDifference(d, names = ['live', 'replayed']) {
  if (!d) return 'no difference';
  if (d.order) return `${d.path}: members in another order: ${names[0]} ${JSON.stringify(d.a)}, ${names[1]} ${JSON.stringify(d.b)}`;
  const lengths = d.lengths ? ` (${d.lengths[0]} vs ${d.lengths[1]} items)` : '';
  return `${d.path}${lengths}: ${names[0]} ${shortJSON(d.a)}, ${names[1]} ${shortJSON(d.b)}`;
}

/**
 * Compares two traces of the same conversation run by run. Each trace is a list of runs,
 * each a list of events (ordered values, or plain objects taken in their key order); the
 * ids of each are renumbered (renumber) over the whole conversation. Returns one result
 * per run: {run, match, difference (firstDifference, its path starting with the event's
 * index), event (that event's type), text (in words)}.
 */
export function compareTraces(a, b, names = ['live', 'replayed']) {
  const A = renumber(a.map((run) => run.map(ordered)));
  const B = renumber(b.map((run) => run.map(ordered)));
  const results = [];
  for (let run = 0; run < Math.max(A.length, B.length); run++) {
    if (run >= A.length || run >= B.length) {
      const missing = run >= A.length ? names[0] : names[1];
      results.push({ run, match: false, difference: null, text: `the ${missing} trace has no run ${run + 1}` });
      continue;
    }
    const difference = firstDifference(A[run], B[run]);
    const index = difference ? Number(difference.path.split('/')[1]) : undefined;
    const event = difference ? typeOf(A[run][index] ?? B[run][index]) : undefined;
    results.push({
      run,
      match: !difference,
      difference,
      event,
      text: difference ? `event ${index}${event ? ` (${event})` : ''} ${describeDifference(difference, names)}` : 'equal',
    });
  }
  return results;
}

/** The type member of an ordered event. */
function typeOf(event) {
  return event instanceof Members ? event.entries.find(([k]) => k === 'type')?.[1] : undefined;
}
