// CopilotKit's BuiltInAgent (@copilotkit/runtime's v2 exports: an AG-UI agent that runs
// an AI SDK language model with streamText) on a scripted language model — the ai
// package's MockLanguageModelV3, the model interface the runtime's AI SDK 6 speaks: no
// key, no network — served as an AG-UI server by serve.js. The model answers from the
// conversation it is given: it calls a server tool (get_weather, which BuiltInAgent runs
// and then asks the model again), says what the user said before, asks whether there is
// anything else when run again with no new user message, and tells a story a word at a
// time, slowly, for a user to stop.
//
//   node builtin-agent.js [port]      AGENT_TOOL_NAME renames the tool (a changed agent)

import { randomUUID } from 'node:crypto';
import { BuiltInAgent, defineTool } from '@copilotkit/runtime/v2';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { serveAgent } from './serve.js';

const weatherTool = process.env.AGENT_TOOL_NAME || 'get_weather';

const tools = [
  defineTool({
    name: weatherTool,
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperature: 21, conditions: 'sunny' }),
  }),
];

/** The text of a prompt message's content (a string, or parts). */
const textOf = (content) => (typeof content === 'string' ? content : content.filter((p) => p.type === 'text').map((p) => p.text).join(''));

/** A long answer, streamed a word at a time, slowly: a run the user has time to stop. */
const STORY = `${'Once upon a time there was a mock that kept every word it was told. '.repeat(2)}The end.`;
const WORD_DELAY_MS = 100;

/** What the scripted model says next, from the conversation so far. */
function answer(prompt) {
  const last = prompt.at(-1);
  if (last.role === 'tool') return { text: 'It is 21 degrees and sunny in Paris.' };
  // run again with no new user message (a "regenerate")
  if (last.role === 'assistant') return { text: 'Is there anything else?' };
  const said = textOf(last.content).toLowerCase();
  if (said.includes('weather')) return { tool: weatherTool, input: { city: 'Paris' } };
  if (said.includes('story')) return { text: STORY, slowly: true };
  if (said.includes('what did i say')) {
    const before = prompt.filter((m) => m.role === 'user').at(-2);
    return { text: before ? `You said: "${textOf(before.content)}".` : 'You have not said anything yet.' };
  }
  return { text: 'Hello! Ask me about the weather, or for a story.' };
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const model = new MockLanguageModelV3({
  provider: 'scripted',
  modelId: 'scripted-model',
  doStream: async ({ prompt }) => {
    const next = answer(prompt);
    const id = `msg-${randomUUID()}`;
    const deltas = next.slowly ? next.text.split(/(?<= )/) : [next.text];
    const parts = next.tool
      ? [{ type: 'tool-call', toolCallId: `call-${randomUUID()}`, toolName: next.tool, input: JSON.stringify(next.input) }]
      : [{ type: 'text-start', id }, ...deltas.map((delta) => ({ type: 'text-delta', id, delta })), { type: 'text-end', id }];
    const finishReason = { unified: next.tool ? 'tool-calls' : 'stop', raw: undefined };
    const all = [{ type: 'stream-start', warnings: [] }, ...parts, { type: 'finish', finishReason, usage }];
    // A part each WORD_DELAY_MS once the text began when told slowly, until the stream
    // ends or its reader goes away (the client stopped the run).
    let sent = 0;
    return {
      stream: new ReadableStream({
        async pull(controller) {
          if (next.slowly && sent > 2) await new Promise((resolve) => setTimeout(resolve, WORD_DELAY_MS));
          try {
            controller.enqueue(all[sent++]);
            if (sent === all.length) controller.close();
          } catch {
            // the stream was cancelled while this word waited
          }
        },
      }),
    };
  },
});

// Two steps: the tool's call, then the model's answer with its result.
await serveAgent(() => new BuiltInAgent({ model, tools, maxSteps: 2 }), Number(process.argv[2] ?? 0));
