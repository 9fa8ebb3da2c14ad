// A real A2A agent (e2e/agents/a2a-agent.js: the @a2a-js/sdk server with a scripted
// executor) behind the official @ag-ui/a2a adapter, which streams the A2A task's status
// updates as AG-UI text and its tool-call and tool-result parts as tool events: a plain
// answer, a tool call, follow-up turns on the same thread (the A2A agent keeps the
// conversation of its context itself) and a run the user stops before saying something
// else are recorded with `agui-mock record`, replayed to the real HttpAgent from the
// recorded directory served with the built-in scenarios, and verified against the live
// agent (pass) and against one whose tool was renamed (drift).

import { describeRecordedAgent, scriptedConversations } from './agentsuite.js';

describeRecordedAgent({
  label: 'a real A2A agent',
  title: 'an A2A agent behind @ag-ui/a2a',
  script: 'a2a-agent.js',
  tempPrefix: 'agui-mock-a2a-',
  // The adapter puts a task's status messages under one message id: the tool call and
  // the answer after its result are one assistant message.
  conversations: scriptedConversations((toolName, weather) => [
    { role: 'assistant', content: 'It is 21 degrees and sunny in Paris.', toolCalls: [[toolName, { city: 'Paris' }]] },
    { role: 'tool', content: weather },
  ]),
  recordedRuns: 7,
});
