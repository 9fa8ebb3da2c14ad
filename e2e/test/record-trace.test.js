// Live against replayed, trace by trace, as the AG-UI Dojo compares event traces: each real
// agent of e2e/agents holds a conversation through `agui-mock record` — a first turn, an
// interrupt and its answer where the agent raises one, a run the user stops after a few
// events, and a follow-up turn on the same thread — while the client keeps every event it
// received, as the agent's JSON text (trace.js). The recorded directory is then served as
// a user serves it (the built-in scenarios loaded too), a new client holds the same
// conversation with the replay, and each replayed run must be the live run's trace: the
// same events, with the same members in the same order, ids renumbered in the order first
// met and timestamps left out. A stopped run is compared as far as the user saw it live.
//
// The conversation is held with @ag-ui/client's HttpAgent, and, for the agents whose row
// says so, through a CopilotKit runtime (@copilotkit/runtime in front of an HttpAgent to
// the recorder while recording, to the replay after), its client being @copilotkit/core's.
//
// An agent is one row of AGENTS: its script in e2e/agents and the turns of its
// conversation. A row whose script is not there yet is left out. With AGUI_MOCK_TRACE_DIR
// set, the traces and the recordings are kept there, to read when a run differs.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { AGENTS_DIR, agentsInstalled, startAgent } from './agents.js';
import { agentOf, CopilotKitCore, startRuntime } from './copilotkit.js';
import { makeTempDir, startServer } from './harness.js';
import { recordedLines } from './realagents.js';
import { recordings, startRecorder } from './recording.js';
import { compareTraces, parseOrdered, toJSON } from './trace.js';

/**
 * The agents and their conversations. A turn says a new user message (say), answers the
 * interrupts the run before raised (resume: the payload, sent in the agent's dialect:
 * RunAgentInput.resume for RUN_FINISHED's outcome "interrupt", forwardedProps.command for
 * a CUSTOM on_interrupt), and may be stopped by the user (agent.abortRun()) when the
 * client has taken in stopAfter events of it as they came over the wire (takenIn); the
 * next turn goes on from what the client held then (stopAt). A stopped run's trace is
 * those stopAfter events. copilotkit: the conversation is also held through a CopilotKit
 * runtime.
 */
const AGENTS = [
  {
    name: 'LangGraph (@ag-ui/langgraph)',
    script: 'langgraph-agent.js',
    copilotkit: true,
    turns: [
      { say: 'Book me a flight' },
      { resume: { approved: true } },
      { say: 'Book me another flight', stopAfter: 4 },
      { say: 'Thanks, that is all' },
    ],
  },
  {
    name: 'Mastra (@ag-ui/mastra)',
    script: 'mastra-agent.js',
    copilotkit: true,
    turns: [
      { say: 'What is the weather in Paris?' },
      { say: 'Book a trip to Paris' },
      { resume: { approved: true } },
      { say: 'Tell me a story', stopAfter: 5 },
      { say: 'Hello there' },
    ],
  },
  {
    name: 'A2A (@ag-ui/a2a)',
    script: 'a2a-agent.js',
    copilotkit: true,
    turns: [{ say: 'What is the weather in Paris?' }, { say: 'Tell me a story', stopAfter: 5 }, { say: 'What did I say?' }],
  },
  {
    name: "CopilotKit's BuiltInAgent",
    script: 'builtin-agent.js',
    copilotkit: true,
    turns: [{ say: 'What is the weather in Paris?' }, { say: 'Tell me a story', stopAfter: 5 }, { say: 'What did I say?' }],
  },
];

/** What a turn is, for the report. */
const turnLabel = (turn) => (turn.say ? `${turn.stopAfter ? 'stopped after ' + turn.stopAfter + ' events: ' : ''}"${turn.say}"` : `answers the interrupt with ${JSON.stringify(turn.resume)}`);

/**
 * The replay plays without its recorded delays, which a trace leaves out (the recorder
 * does not pass the mock's headers on to the agent).
 */
const HEADERS = { 'X-Agui-Mock-Speed': '0' };

/**
 * A fetch that keeps the events of every event stream it answers, in order of request: a
 * list per stream, each event read from its JSON text with its members in the order sent
 * (parseOrdered). Events are taken as they pass to the client, so a stream the client
 * stops holds what reached it.
 */
function tracingFetch(streams) {
  return async (url, init) => {
    const res = await fetch(url, init);
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    const events = [];
    streams.push(events);
    const decoder = new TextDecoder();
    let buffer = '';
    const take = (all) => {
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = all ? '' : blocks.pop();
      for (const block of blocks) {
        const data = block
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) events.push(parseOrdered(data));
      }
    };
    const body = res.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          buffer += decoder.decode(chunk, { stream: true });
          take(false);
          controller.enqueue(chunk);
        },
        flush() {
          buffer += decoder.decode();
          take(true);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** An event of a trace as a plain object. */
const plain = (event) => JSON.parse(toJSON(event));

/**
 * The input that answers the interrupts of a run's trace with payload, in the dialect
 * the agent raised them in.
 */
function answer(trace, payload) {
  const events = trace.map(plain);
  const finished = events.findLast((e) => e.type === 'RUN_FINISHED');
  if (finished?.outcome?.type === 'interrupt') {
    return { resume: finished.outcome.interrupts.map((i) => ({ interruptId: i.id, status: 'resolved', payload })) };
  }
  const raised = events.findLast((e) => e.type === 'CUSTOM' && e.name === 'on_interrupt');
  if (raised) return { forwardedProps: { command: { resume: payload, interruptEvent: raised.value } } };
  return {};
}

/**
 * What the client holds when the user presses Stop, given an onEvent's messages and state:
 * what the next turn is to send. Events the client applies after it — those that came in
 * the same network read, or, through CopilotKit, until the runtime has stopped the run —
 * depend on how the events were read, not on what they were, and would make the next
 * turn's request differ between two sessions of the same events.
 */
const stopAt = ({ messages, state }) => ({ messages: structuredClone(messages), state: structuredClone(state) });

/**
 * Counts the events of the latest stream of streams that the client has taken in, given
 * each event the client applies in turn: one the client turns into several (a
 * TEXT_MESSAGE_CHUNK into a start and a content event) counts once, when its content is
 * applied, and the ends the client adds count for nothing. Returns the count after event.
 */
function takenIn(streams) {
  let count = 0;
  return (event) => {
    const next = streams.at(-1)?.[count];
    const type = next && plain(next).type;
    const delta = next && plain(next).delta;
    if (type === event.type) count++;
    else if (type?.endsWith('_CHUNK') && (/_(CONTENT|ARGS)$/.test(event.type) || (/_START$/.test(event.type) && !delta))) count++;
    return count;
  };
}

/** A client on @ag-ui/client's HttpAgent, posting to url's run route. */
function httpAgentClient(url) {
  const streams = [];
  const agent = new HttpAgent({ url: `${url}/agui/chat`, headers: HEADERS, fetch: tracingFetch(streams) });
  return {
    streams,
    async run({ say, input, stopAfter }) {
      if (say) agent.addMessage({ id: randomUUID(), role: 'user', content: say });
      const problems = [];
      const taken = takenIn(streams);
      let held;
      try {
        await agent.runAgent(
          { runId: randomUUID(), ...input },
          {
            onEvent: ({ event, messages, state }) => {
              if (stopAfter && !held && taken(event) >= stopAfter) {
                held = stopAt({ messages, state });
                agent.abortRun(); // the Stop button
                agent.detachActiveRun();
              }
            },
            onRunFailed: ({ error }) => problems.push(`run failed: ${error?.message ?? error}`),
          },
        );
      } catch (err) {
        problems.push(`runAgent rejected: ${err?.message ?? err}`);
      }
      if (held) {
        agent.setMessages(held.messages);
        agent.setState(held.state);
      }
      return { problems, stopped: Boolean(held) };
    },
    close: async () => {},
  };
}

/**
 * A client of a CopilotKit app (@copilotkit/core) on a CopilotKit runtime whose agent is
 * an HttpAgent to url (copilotkit.js startRuntime).
 */
async function copilotKitClient(url) {
  const runtime = await startRuntime(url, HEADERS);
  const core = new CopilotKitCore({ runtimeUrl: runtime.url });
  const agent = await agentOf(core);
  const streams = [];
  agent.fetch = tracingFetch(streams);
  let current;
  agent.subscribe({
    onEvent: (params) => current?.onEvent(params),
    onRunFailed: ({ error }) => current?.problems.push(`run failed: ${error?.message ?? error}`),
  });
  core.subscribe({ onError: ({ error }) => current?.problems.push(`CopilotKit: ${error?.message ?? error}`) });
  return {
    streams,
    async run({ say, input, stopAfter }) {
      if (say) agent.addMessage({ id: randomUUID(), role: 'user', content: say });
      const taken = takenIn(streams);
      current = {
        problems: [],
        held: undefined,
        onEvent(params) {
          if (stopAfter && !this.held && taken(params.event) >= stopAfter) {
            this.held = stopAt(params);
            // The Stop button: the runtime is asked to stop the run, and its stream ends when it has.
            core.stopAgent({ agent });
            agent.detachActiveRun();
          }
        },
      };
      await core.runAgent({ agent, ...input });
      const { problems, held } = current;
      current = undefined;
      if (held) {
        agent.setMessages(held.messages);
        agent.setState(held.state);
      }
      return { problems, stopped: Boolean(held) };
    },
    close: () => runtime.close(),
  };
}

/** The ways a conversation is held: by HttpAgent, and through CopilotKit where the row says so. */
const PATHS = [
  { name: 'HttpAgent', client: httpAgentClient, applies: () => true, say: (text) => text },
  // its own words, so that its sessions are recorded beside the HttpAgent's, not over them
  { name: 'CopilotKit runtime', client: copilotKitClient, applies: (row) => row.copilotkit, say: (text) => `${text} (through CopilotKit)` },
];

/**
 * Holds a row's conversation with url by a path's client, and resolves with its trace
 * (the events of each turn's run: of a stopped run, those that arrived up to stopAfter,
 * what the user saw) and what went wrong in each turn.
 */
async function converse(row, via, url) {
  const client = await via.client(url);
  const trace = [];
  const notes = [];
  try {
    for (const turn of row.turns) {
      const before = client.streams.length;
      const input = turn.resume ? answer(trace.at(-1) ?? [], turn.resume) : {};
      const { problems, stopped } = await client.run({ say: turn.say && via.say(turn.say), input, stopAfter: turn.stopAfter });
      const made = client.streams.slice(before);
      if (made.length !== 1) problems.push(`${made.length} event streams answered the turn`);
      if (turn.stopAfter && !stopped) problems.push(`the run ended before ${turn.stopAfter} events, unstopped`);
      const events = made[0] ?? [];
      trace.push(turn.stopAfter ? events.slice(0, turn.stopAfter) : events);
      notes.push(problems);
    }
  } finally {
    await client.close();
  }
  return { trace, notes };
}

/**
 * Keeps a row's traces (one JSON text per line: a run's events) and its recordings under
 * AGUI_MOCK_TRACE_DIR, to read when a run differs.
 */
function dump(row, dir, traces, side) {
  const to = path.join(process.env.AGUI_MOCK_TRACE_DIR, path.basename(row.script, '.js'));
  mkdirSync(to, { recursive: true });
  for (const [via, { trace, notes }] of Object.entries(traces)) {
    const text = trace.map((events, i) => `# run ${i + 1}${notes[i].length ? `: ${notes[i].join('; ')}` : ''}\n${events.map(toJSON).join('\n')}\n`).join('');
    writeFileSync(path.join(to, `${via.replaceAll(' ', '-')}.${side}.jsonl`), text);
  }
  cpSync(dir, path.join(to, 'recorded'), { recursive: true });
}

const rows = AGENTS.filter((row) => existsSync(path.join(AGENTS_DIR, row.script)));

if (agentsInstalled('live and replayed traces of the real agents')) {
  // Each agent starts while the one before it is asked: starting one takes seconds.
  const starting = new Map();
  const agentFor = (row) => {
    if (row && !starting.has(row)) {
      const start = startAgent(row.script);
      start.catch(() => {}); // its own suite reports it
      starting.set(row, start);
    }
    return starting.get(row);
  };
  // A server asked to stop right after a client stopped a run waits seconds for the
  // client's connections: the stops are waited for at the end, not one by one.
  const stopping = [];
  after(() => Promise.all(stopping));
  for (const [n, row] of rows.entries()) {
    const paths = PATHS.filter((via) => via.applies(row));
    describe(`${row.name}: the replay of a recorded conversation is the live trace`, () => {
      const dir = makeTempDir('agui-mock-trace-');
      const live = {};
      const replayed = {};
      let recorderOutput = [];
      before(async () => {
        const agent = await agentFor(row);
        agentFor(rows[n + 1]);
        try {
          const recorder = await startRecorder(agent.url, dir);
          try {
            for (const via of paths) live[via.name] = await converse(row, via, recorder.url);
            const runs = paths.length * row.turns.length;
            await recordedLines(recorder, runs, 15_000);
          } finally {
            recorderOutput = recorder.output;
            stopping.push(recorder.stop());
          }
        } finally {
          stopping.push(agent.stop());
        }
        if (process.env.AGUI_MOCK_TRACE_DIR) dump(row, dir, live, 'live');
        // served as a user serves a recording: the built-in scenarios, catch-all included, loaded too
        const replay = await startServer(['--scenarios', dir]);
        try {
          for (const via of paths) replayed[via.name] = await converse(row, via, replay.url);
        } finally {
          stopping.push(replay.stop());
        }
        if (process.env.AGUI_MOCK_TRACE_DIR) dump(row, dir, replayed, 'replayed');
      });

      test('the conversation was recorded', () => {
        const lines = recorderOutput.filter((line) => line.startsWith('recorded run'));
        assert.equal(lines.length, paths.length * row.turns.length, recorderOutput.join('\n'));
        assert.ok(recordings(dir).length > 0);
      });

      for (const via of paths) {
        for (const [i, turn] of row.turns.entries()) {
          test(`${via.name}, run ${i + 1} (${turnLabel(turn)}): replayed as it ran live`, () => {
            assert.ok(live[via.name] && replayed[via.name], 'the conversation was held live and with the replay');
            const liveNotes = live[via.name].notes[i];
            const replayNotes = replayed[via.name].notes[i];
            assert.ok(live[via.name].trace[i].length > 0, `no live events: ${liveNotes.join('; ')}`);
            const result = compareTraces(live[via.name].trace, replayed[via.name].trace)[i];
            const notes = [...liveNotes.map((n) => `live: ${n}`), ...replayNotes.map((n) => `replayed: ${n}`)];
            assert.ok(result.match, `${row.name}, ${via.name}, run ${i + 1}: ${result.text}${notes.length ? ` [${notes.join('; ')}]` : ''}`);
            assert.deepEqual(notes, [], 'the run went as the conversation meant it, live and replayed');
          });
        }
      }
    });
  }
}
