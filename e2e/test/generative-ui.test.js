// Generative-UI surfaces as real apps receive them, through the official packages that
// handle them in Node: an A2UI surface (examples/a2ui-surface.yaml) behind
// @ag-ui/a2ui-middleware, whose button actions come back in forwardedProps.a2uiAction and
// choose the next scenario; an MCP Apps activity (examples/mcp-apps.yaml) behind
// @ag-ui/mcp-apps-middleware; and the Dojo's predictive state (PredictState), as the
// client's CopilotKit bridge turns a streamed tool call into state.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import { A2UIActivityType, A2UIMiddleware, LOG_A2UI_EVENT_TOOL_NAME } from '@ag-ui/a2ui-middleware';
import { MCPAppsActivityType, MCPAppsMiddleware } from '@ag-ui/mcp-apps-middleware';
import { CLIENTS, Conversation, SPEED_HEADER, assertCleanRun, messagesOf } from './clients.js';
import { journalEntry } from './admin.js';
import { REPO_ROOT, useServer } from './harness.js';

const mock = useServer(['--scenarios', path.join(REPO_ROOT, 'examples')]);

// The CommonJS builds of the clients, which CopilotKit's runtime loads: in Node the ESM
// build of @ag-ui/client imports untruncate-json (CommonJS, without exports) as a
// namespace it cannot call, so its PredictState bridge never updates the state there.
const require = createRequire(import.meta.url);
const commonJS = { '1.0.0': require('@ag-ui/client'), '0.0.58': require('ag-ui-client-0.0.58') };

/** The user pressing a button of the booking surface, as the A2UI renderer reports it. */
const action = (name, sourceComponentId, context) => ({ a2uiAction: { userAction: { name, surfaceId: 'booking', sourceComponentId, ...(context && { context }) } } });

/** The activity messages of the agent's conversation of one activity type. */
const activities = (conv, type) => conv.agent.messages.filter((m) => m.role === 'activity' && m.activityType === type);

/** The A2UI operations of the agent's latest surface snapshot. */
const latestOperations = (conv) => activities(conv, A2UIActivityType).at(-1).content.a2ui_operations;

/** The text of the assistant's latest message. */
const lastText = (run) => messagesOf(run, 'assistant').filter((m) => m.content).at(-1)?.content;

for (const client of CLIENTS) {
  // @ag-ui/client 1.0.0 runs the middleware of the official packages; 0.0.58 receives the
  // same stream without it, and sends the action as the renderer does.
  const withMiddleware = client.protocolVersion !== undefined;

  describe(`A2UI surface, ${client.label}${withMiddleware ? ' with A2UIMiddleware' : ''}`, () => {
    const conversation = () => {
      const conv = new Conversation(client, { url: mock.url });
      if (withMiddleware) conv.agent.use(new A2UIMiddleware({}));
      return conv;
    };

    for (const press of [
      { name: 'confirm_booking', component: 'confirm', context: { time: '19:30' }, reply: 'Booked for 19:30.', operation: 'updateDataModel' },
      { name: 'cancel_booking', component: 'cancel', reply: 'No booking made.', operation: 'deleteSurface' },
    ]) {
      test(`the surface, then ${press.name} chooses the next scenario`, async () => {
        const conv = conversation();
        const first = await conv.send('Book a table for two tonight');
        assertCleanRun(first);
        assert.equal(A2UIActivityType, 'a2ui-surface');
        const [surface] = activities(conv, A2UIActivityType);
        assert.ok(surface, `no ${A2UIActivityType} activity message: ${JSON.stringify(conv.agent.messages)}`);
        const ops = surface.content.a2ui_operations;
        assert.deepEqual(ops.map((op) => Object.keys(op).filter((k) => k !== 'version')[0]), ['createSurface', 'updateComponents', 'updateDataModel']);
        assert.ok(ops.every((op) => op.version === 'v0.9'));
        const button = ops[1].updateComponents.components.find((c) => c.id === press.component);
        assert.equal(button.action.event.name, press.name, 'the button names the action the app sends back');

        const second = await conv.continue({ forwardedProps: action(press.name, press.component, press.context) });
        assertCleanRun(second);
        assert.equal(lastText(second), press.reply);
        assert.ok(Object.hasOwn(latestOperations(conv)[0], press.operation), JSON.stringify(latestOperations(conv)));
        const entry = await journalEntry(mock, (e) => e.runId === second.runId);
        assert.equal(entry.scenario, press.name === 'confirm_booking' ? 'a2ui-booking-confirmed' : 'a2ui-booking-cancelled');
        if (withMiddleware) {
          // the middleware tells the agent what the user did, as a logged tool call
          const messages = entry.request.messages;
          const logged = messages.find((m) => m.role === 'assistant' && m.toolCalls?.[0]?.function.name === LOG_A2UI_EVENT_TOOL_NAME);
          assert.ok(logged, `no ${LOG_A2UI_EVENT_TOOL_NAME} call in ${JSON.stringify(messages)}`);
          assert.match(messages.at(-1).content, new RegExp(`User performed action "${press.name}" on surface "booking"`));
        }
      });
    }
  });

  test(`an MCP Apps activity, ${client.label}${withMiddleware ? ' with MCPAppsMiddleware' : ''}`, async () => {
    const conv = new Conversation(client, { url: mock.url });
    if (withMiddleware) conv.agent.use(new MCPAppsMiddleware({ mcpServers: [] }));
    const run = await conv.send('Show the forecast card for Lisbon');
    assertCleanRun(run);
    assert.equal(MCPAppsActivityType, 'mcp-apps');
    const [card] = activities(conv, MCPAppsActivityType);
    assert.ok(card, `no ${MCPAppsActivityType} activity message: ${JSON.stringify(conv.agent.messages)}`);
    assert.equal(card.content.resourceUri, 'ui://weather-server/forecast.html');
    assert.equal(card.content.serverId, 'weather-server');
    assert.deepEqual(card.content.toolInput, { city: 'Lisbon' });
    assert.deepEqual(card.content.result.structuredContent, { city: 'Lisbon', celsius: 21, sky: 'sunny' });
    const call = messagesOf(run, 'assistant').flatMap((m) => m.toolCalls ?? [])[0];
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Lisbon' });
    assert.equal(lastText(run), 'It is 21 °C and sunny in Lisbon.');
  });

  test(`PredictState: the streamed document becomes the agent's state, ${client.label}`, async () => {
    const agent = new commonJS[client.version].HttpAgent({ url: `${mock.url}/predictive_state_updates`, headers: { [SPEED_HEADER]: '0' } });
    agent.messages = [{ id: 'u1', role: 'user', content: 'Write a story' }];
    // the bridge CopilotKit's runtime reads an agent through: a PredictState custom event
    // makes each piece of write_document_local's document argument a state update
    const states = [];
    await new Promise((resolve, reject) =>
      agent.legacy_to_be_removed_runAgentBridged({ runId: 'run-predict' }).subscribe({
        next: (event) => event.type === 'AgentStateMessage' && states.push(JSON.parse(event.state)),
        error: reject,
        complete: resolve,
      }),
    );
    const documents = states.map((s) => s.document).filter((d) => d !== undefined);
    assert.ok(documents.length > 5, `the document grew in ${documents.length} steps: ${JSON.stringify(documents)}`);
    assert.match(documents.at(-1), /^There once was a dog called (Rex|Buddy|Max|Charlie)\. \1 was the best dog in the whole town\. $/);
    for (let i = 1; i < documents.length; i++) assert.ok(documents[i].startsWith(documents[i - 1]), 'each update extends the document');
  });
}
