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

/** The media type of AG-UI's protobuf transport. */
const PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';

/**
 * A fetch that asks for the protobuf transport: HttpAgent sends Accept:
 * text/event-stream itself, and decodes whichever transport the answer names.
 */
const protobufFetch = (url, init) =>
  fetch(url, { ...init, headers: { ...init.headers, Accept: `${PROTO_MEDIA_TYPE}, text/event-stream` } });

let lastAgent;

window.aguiTest = {
  /**
   * Sends one user message (text or content parts) to url, from an agent whose state
   * starts as state, or with resume answers the last run's interrupts, and resolves when
   * the run is over, never rejecting: {status, events (their types), interrupts (those
   * the run ended with), messages, state, threadId, seen (the events without their
   * timestamps)}. tools are the tool definitions the agent offers; transport 'proto' asks for the protobuf transport; threadId, runId
   * and messageId, when given, replace the random ids of the agent, the run and the
   * user message.
   */
  async run({ url, message, forwardedProps = {}, tools = [], headers = {}, state, resume, transport, threadId, runId, messageId }) {
    // resume answers the interrupts of the last run, on its agent (and thread)
    const agent = resume
      ? lastAgent
      : new HttpAgent({ url, headers, initialState: state, threadId, ...(transport === 'proto' && { fetch: protobufFetch }) });
    lastAgent = agent;
    if (!resume) agent.messages = [{ id: messageId ?? crypto.randomUUID(), role: 'user', content: message }];
    const events = [];
    const seen = [];
    let interrupts = [];
    statusElement.textContent = 'running';
    render(agent.messages);
    try {
      await agent.runAgent(
        { forwardedProps, tools, ...(runId && { runId }), ...(resume && { resume }) },
        {
          onEvent: ({ event }) => {
            events.push(event.type);
            const { timestamp, ...rest } = event;
            seen.push(structuredClone(rest));
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
      seen,
    };
  },
};

document.body.dataset.ready = 'true';
