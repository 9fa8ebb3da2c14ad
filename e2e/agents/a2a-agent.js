// An A2A agent behind @ag-ui/a2a's A2AAgent, as an AG-UI server: the A2A SDK's own server
// (@a2a-js/sdk: its express app, DefaultRequestHandler and in-memory task store) serves a
// scripted executor on one loopback port, and serve.js serves A2AAgent, which talks to it
// through the SDK's A2AClient, on another. No model: the executor answers from the
// user's words, publishing what an A2A agent publishes — the task, "working" status
// updates whose message grows, and a final "completed" one.
//
// The adapter sends only the latest user message, with the AG-UI thread as the A2A
// context: the executor remembers each context's earlier messages itself, as an A2A
// agent keeps its own conversation. It reports a server tool it ran (get_weather) as the
// tool-call and tool-result data parts the adapter turns into AG-UI tool events, and
// tells a story a word at a time, slowly, for a user to stop.
//
//   node a2a-agent.js [port] [a2a-port]      AGENT_TOOL_NAME renames the tool (a changed agent)

import { randomUUID } from 'node:crypto';
import { A2AClient } from '@a2a-js/sdk/client';
import { A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AAgent } from '@ag-ui/a2a';
import express from 'express';
import { serveAgent } from './serve.js';

const weatherTool = process.env.AGENT_TOOL_NAME || 'get_weather';

/** A long answer, sent a word at a time, slowly: a run the user has time to stop. */
const STORY = `${'Once upon a time there was a mock that kept every word it was told. '.repeat(2)}The end.`;
const WORD_DELAY_MS = 100;

/** What each context (an AG-UI thread) said so far, oldest first. */
const said = new Map();

const textOf = (message) => message.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');

class ScriptedExecutor {
  /** Tasks whose cancellation was asked for: their loop stops at the next word. */
  cancelled = new Set();

  async cancelTask(taskId) {
    this.cancelled.add(taskId);
  }

  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const earlier = said.get(contextId) ?? [];
    const text = textOf(userMessage);
    said.set(contextId, [...earlier, text]);
    const now = () => new Date().toISOString();
    const agentMessage = (parts) => ({ kind: 'message', role: 'agent', messageId: randomUUID(), parts, taskId, contextId });
    const status = (state, parts, final = false) =>
      bus.publish({ kind: 'status-update', taskId, contextId, status: { state, message: agentMessage(parts), timestamp: now() }, final });
    const complete = (answer) => {
      status('completed', [{ kind: 'text', text: answer }], true);
      bus.finished();
    };

    if (!context.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: now() }, history: [userMessage] });
    }
    const lower = text.toLowerCase();
    if (lower.includes('weather')) {
      const callId = `call-${randomUUID()}`;
      status('working', [{ kind: 'data', data: { type: 'tool-call', id: callId, name: weatherTool, arguments: { city: 'Paris' } } }]);
      status('working', [{ kind: 'data', data: { type: 'tool-result', toolCallId: callId, payload: { city: 'Paris', temperature: 21, conditions: 'sunny' } } }]);
      return complete('It is 21 degrees and sunny in Paris.');
    }
    if (lower.includes('story')) {
      // The message of each update holds the story so far: the adapter streams what it adds.
      let sofar = '';
      for (const word of STORY.split(/(?<= )/)) {
        if (this.cancelled.has(taskId)) {
          status('canceled', [{ kind: 'text', text: sofar }], true);
          return bus.finished();
        }
        sofar += word;
        status('working', [{ kind: 'text', text: sofar }]);
        await new Promise((resolve) => setTimeout(resolve, WORD_DELAY_MS));
      }
      return complete(sofar);
    }
    if (lower.includes('what did i say')) {
      return complete(earlier.length ? `You said: "${earlier.at(-1)}".` : 'You have not said anything yet.');
    }
    return complete('Hello! Ask me about the weather, or for a story.');
  }
}

const card = {
  name: 'scripted',
  description: 'A scripted A2A agent for the end-to-end tests',
  url: '', // set once the server listens
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'chat', name: 'Chat', description: 'Weather, stories and small talk', tags: ['chat'] }],
};

const app = new A2AExpressApp(new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor())).setupRoutes(express());
const a2aServer = await new Promise((resolve, reject) => {
  const server = app.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => resolve(server));
  server.once('error', reject);
});
card.url = `http://127.0.0.1:${a2aServer.address().port}/`;

// A client per run: A2AAgent wraps the client's methods when it is made, so a shared
// client would be wrapped once more by every run.
await serveAgent(() => new A2AAgent({ a2aClient: new A2AClient(card.url) }), Number(process.argv[2] ?? 0));
