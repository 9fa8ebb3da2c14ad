// The page's script: the real @ag-ui/client HttpAgent running in the browser, bundled
// by build.js. It renders the agent's messages as they stream, so that a test can look
// at the page at any moment, and exposes window.aguiTest.run() to start a run.

import { HttpAgent } from '@ag-ui/client';

const statusElement = document.getElementById('status');
const messagesElement = document.getElementById('messages');

/** Renders every message of the agent: data-role, its text, and its tool calls. */
function render(messages) {
  messagesElement.replaceChildren(
    ...messages.map((message) => {
      const element = document.createElement('div');
      element.dataset.role = message.role;
      element.dataset.id = message.id;
      const text = document.createElement('span');
      text.className = 'content';
      text.textContent = typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
      element.append(text);
      for (const call of message.toolCalls ?? []) {
        const callElement = document.createElement('code');
        callElement.dataset.toolCall = call.function.name;
        callElement.textContent = call.function.arguments;
        element.append(callElement);
      }
      return element;
    }),
  );
}

let lastAgent;

window.aguiTest = {
  /**
   * Sends one user message (text or content parts) to url, from an agent whose state
   * starts as state, or with resume answers the last run's interrupts, and resolves when
   * the run is over, never rejecting: {status, events (their types), interrupts (those
   * the run ended with), messages, state, threadId}.
   */
  async run({ url, message, forwardedProps = {}, headers = {}, state, resume }) {
    // resume answers the interrupts of the last run, on its agent (and thread)
    const agent = resume ? lastAgent : new HttpAgent({ url, headers, initialState: state });
    lastAgent = agent;
    if (!resume) agent.messages = [{ id: crypto.randomUUID(), role: 'user', content: message }];
    const events = [];
    let interrupts = [];
    statusElement.textContent = 'running';
    render(agent.messages);
    try {
      await agent.runAgent(
        { forwardedProps, ...(resume && { resume }) },
        {
          onEvent: ({ event }) => {
            events.push(event.type);
          },
          onRunFinishedEvent: (params) => {
            interrupts = params.interrupts ?? [];
          },
          onMessagesChanged: ({ messages }) => render(messages),
        },
      );
      statusElement.textContent = 'done';
    } catch (err) {
      statusElement.textContent = `failed: ${err.message}`;
    }
    render(agent.messages);
    return {
      status: statusElement.textContent,
      events,
      interrupts,
      messages: structuredClone(agent.messages),
      state: structuredClone(agent.state),
      threadId: agent.threadId,
    };
  },
};

document.body.dataset.ready = 'true';
