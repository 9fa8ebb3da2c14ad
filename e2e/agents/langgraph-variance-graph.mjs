// A LangGraph JS graph whose runs differ from one to the next in their scheduling, not
// in their answer, on canned models (FakeListChatModel: no key, no network). Served by
// langgraph-agent.js when AGENT_GRAPH=variance.
//
// Each run first checks flights and hotels at once: two subgraphs side by side whose
// node works in small steps of random length, so the server streams the two subgraphs'
// events interleaved, differently each run. @ag-ui/langgraph sends a STATE_SNAPSHOT and
// a MESSAGES_SNAPSHOT each time the stream goes from one subgraph to the other: how many
// it sends, and where, changes from run to run, as with a LangGraph agent of parallel
// subgraphs on real models. Then the graph answers from the whole conversation: asked
// "What did I book?" on a thread where a flight was mentioned before, it looks the
// booking up with a tool call; asked on a thread with no such history, it says so in
// plain text. AGENT_TOOL_NAME renames the tool (a changed agent).

import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';

const toolName = process.env.AGENT_TOOL_NAME || 'lookup_booking';

const State = new StateSchema({ messages: MessagesValue });

/** A model that says text, once: a new one per call, so every run says the same. */
const say = (text) => new FakeListChatModel({ responses: [text] });

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The branches of each run that have done their checks, by run. */
const checked = new Map();

/**
 * A branch's check: three small steps of a random 0–15 ms each. Both subgraphs' node is
 * named `check`, so the adapter's steps (STEP_STARTED/STEP_FINISHED, named by the node)
 * do not change however the two interleave; only its snapshots do. The branches then end
 * in a fixed order: each waits for the other's steps, and hotels lingers 100 ms more, so
 * that flights has ended before hotels does. (Left to end as their steps fall, the
 * branches end in either order, and the adapter's steps come in either order too.)
 */
const check = (branch) =>
  new StateGraph(State)
    .addNode('check', async (state, config) => {
      const step = RunnableLambda.from(async () => {
        await pause(Math.random() * 15);
        return 'checked';
      });
      for (let i = 0; i < 3; i++) await step.invoke(branch, config);
      const run = config.configurable.run_id; // the server's id of the run, which both branches share
      let done = checked.get(run);
      if (!done) {
        let resolve;
        done = { count: 0, all: new Promise((r) => (resolve = r)) };
        done.resolve = resolve;
        checked.set(run, done);
      }
      if (++done.count === 2) {
        checked.delete(run);
        done.resolve();
      }
      await done.all;
      if (branch === 'hotels') await pause(100);
      return {};
    })
    .addEdge(START, 'check')
    .addEdge('check', END)
    .compile();

const text = (m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

async function answer(state, config) {
  const last = state.messages.at(-1);
  const earlier = state.messages.slice(0, -1);
  if (!/what did i book/i.test(text(last))) {
    const reply = await say('Booked flight AF1234 to Paris.').invoke(state.messages, config);
    return { messages: [reply] };
  }
  if (!earlier.some((m) => /flight/i.test(text(m)))) {
    const reply = await say('I have no booking of yours.').invoke(state.messages, config);
    return { messages: [reply] };
  }
  const callId = `call-${config.configurable?.thread_id ?? 'thread'}-${state.messages.length}`;
  const call = new AIMessage({ content: '', tool_calls: [{ id: callId, name: toolName, args: { flight: 'AF1234' } }] });
  const result = new ToolMessage({ tool_call_id: callId, content: 'AF1234 to Paris, 9:15' });
  const reply = await say('You booked AF1234 to Paris at 9:15.').invoke([...state.messages, call, result], config);
  return { messages: [call, result, reply] };
}

export const graph = new StateGraph(State)
  .addNode('flights', check('flights'))
  .addNode('hotels', check('hotels'))
  .addNode('answer', answer)
  .addEdge(START, 'flights')
  .addEdge(START, 'hotels')
  .addEdge('flights', 'answer')
  .addEdge('hotels', 'answer')
  .addEdge('answer', END)
  .compile();
