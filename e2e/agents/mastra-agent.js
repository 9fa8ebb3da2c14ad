// A Mastra agent behind @ag-ui/mastra's MastraAgent, on a scripted language model (the ai
// package's MockLanguageModelV4: no key, no network), served as an AG-UI server by
// serve.js. It has a server tool (get_weather, run by Mastra), an approval that
// suspends the run (book_trip: Mastra's tool suspend, an AG-UI interrupt in the standard
// dialect), calls the client's own tools (a frontend tool the request offers), and tells
// a story a word at a time, slowly, for a user to stop.
//
//   node mastra-agent.js [port]      AGENT_TOOL_NAME renames the server tool (a changed agent)

import { MastraAgent } from '@ag-ui/mastra';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { serveAgent } from './serve.js';

const weatherTool = process.env.AGENT_TOOL_NAME || 'get_weather';

const tools = {
  [weatherTool]: createTool({
    id: weatherTool,
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperature: 21, conditions: 'sunny' }),
  }),
  book_trip: createTool({
    id: 'book_trip',
    description: 'Books a trip once the user approves it',
    inputSchema: z.object({ city: z.string() }),
    suspendSchema: z.object({ question: z.string() }),
    resumeSchema: z.object({ approved: z.boolean() }),
    execute: async ({ city }, { agent }) => {
      if (!agent?.resumeData) return agent.suspend({ question: `Book the trip to ${city}?` });
      return { city, booked: agent.resumeData.approved };
    },
  }),
};

/** The text of a prompt message's content (a string, or parts). */
const textOf = (content) => (typeof content === 'string' ? content : content.filter((p) => p.type === 'text').map((p) => p.text).join(''));

/** What the scripted model says next, from the conversation so far. */
function answer(prompt) {
  const last = prompt.at(-1);
  if (last.role === 'tool') {
    const result = last.content.find((p) => p.type === 'tool-result');
    const output = result.output?.value ?? result.output;
    switch (result.toolName) {
      case weatherTool:
        return { text: 'It is 21 degrees and sunny in Paris.' };
      case 'book_trip':
        return { text: output?.booked ? 'Your trip to Paris is booked.' : 'I did not book the trip.' };
      default:
        return { text: 'Done: the background is blue now.' };
    }
  }
  const said = textOf(last.content).toLowerCase();
  if (said.includes('weather')) return { tool: weatherTool, input: { city: 'Paris' } };
  if (said.includes('book')) return { tool: 'book_trip', input: { city: 'Paris' } };
  if (said.includes('background')) return { tool: 'change_background', input: { color: 'blue' } };
  if (said.includes('story')) return { text: STORY, slowly: true };
  return { text: 'Hello! Ask me about the weather, a trip or the background.' };
}

/** A long answer, streamed a word at a time, slowly: a run the user has time to stop. */
const STORY = `${'Once upon a time there was a mock that kept every word it was told. '.repeat(2)}The end.`;
const WORD_DELAY_MS = 100;

let calls = 0;
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const model = new MockLanguageModelV4({
  provider: 'scripted',
  modelId: 'scripted-model',
  doStream: async ({ prompt }) => {
    const next = answer(prompt);
    const id = `part-${++calls}`;
    const deltas = next.slowly ? next.text.split(/(?<= )/) : [next.text];
    const parts = next.tool
      ? [{ type: 'tool-call', toolCallId: `call-${calls}`, toolName: next.tool, input: JSON.stringify(next.input) }]
      : [{ type: 'text-start', id }, ...deltas.map((delta) => ({ type: 'text-delta', id, delta })), { type: 'text-end', id }];
    const finishReason = { unified: next.tool ? 'tool-calls' : 'stop', raw: undefined };
    const all = [{ type: 'stream-start', warnings: [] }, ...parts, { type: 'finish', finishReason, usage }];
    if (!next.slowly) {
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of all) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    }
    // A word each WORD_DELAY_MS, until the stream ends or its reader goes away (the client stopped the run).
    let sent = 0;
    return {
      stream: new ReadableStream({
        async pull(controller) {
          if (sent > 2) await new Promise((resolve) => setTimeout(resolve, WORD_DELAY_MS));
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

const mastra = new Mastra({
  agents: { travel: new Agent({ id: 'travel', name: 'travel', instructions: 'You help with travel.', model, tools }) },
  storage: new InMemoryStore(),
  logger: false,
});

await serveAgent(
  () => new MastraAgent({ agent: mastra.getAgent('travel'), resourceId: 'e2e', emitInterruptOutcome: true }),
  Number(process.argv[2] ?? 0),
);
