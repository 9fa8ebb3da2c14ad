// A LangGraph JS graph on canned models (FakeListChatModel: no key, no network), served by
// the in-memory LangGraph API server that langgraph-agent.js starts. It offers to book a
// flight, asks for approval with interrupt(), and answers with a tool call either way.
// AGENT_TOOL_NAME renames the tool (a changed agent).
//
// Its state is a StateSchema, which the server reads its input and output schemas from at
// run time (the adapter asks for them before every run); a graph without one has them
// extracted from its TypeScript source, which takes seconds and fails for JavaScript.

import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';

const toolName = process.env.AGENT_TOOL_NAME || 'book_flight';

const State = new StateSchema({ messages: MessagesValue });

/** A model that says text, once: a new one per call, so every run says the same. */
const say = (text) => new FakeListChatModel({ responses: [text] });

async function offer(state, config) {
  const reply = await say('Flight AF1234 to Paris?').invoke(state.messages, config);
  return { messages: [reply] };
}

async function approve(state, config) {
  const answer = interrupt({ question: 'Book the 9:15 flight to Paris?', flight: 'AF1234' });
  const approved = answer === true || answer?.approved === true;
  const callId = `call-${config.configurable?.thread_id ?? 'thread'}`;
  const call = new AIMessage({ content: '', tool_calls: [{ id: callId, name: toolName, args: { flight: 'AF1234', approved } }] });
  const result = new ToolMessage({ tool_call_id: callId, content: approved ? 'booked' : 'cancelled' });
  const reply = await say(approved ? 'Booked AF1234.' : 'Not booked.').invoke([...state.messages, call, result], config);
  return { messages: [call, result, reply] };
}

export const graph = new StateGraph(State)
  .addNode('offer', offer)
  .addNode('approve', approve)
  .addEdge(START, 'offer')
  .addEdge('offer', 'approve')
  .addEdge('approve', END)
  .compile();
