// Scenario files the tests write for servers started with --scenarios.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, writeTempFiles } from './harness.js';

/**
 * A scenario that only answers on its own route, for one tenant header and a signed-in
 * state, so that its example exercises every example field but forwardedProps and tools.
 */
export const TENANT_SCENARIO = `\
id: tenant-ping
description: Answers "ping" on the tenant route for signed-in users of tenant acme.
match:
  route: /tenant/agent
  message: (?i)^ping$
  headers:
    X-Tenant: ^acme$
  state:
    user: {signedIn: true}
examples:
  - route: /tenant/agent
    message: ping
    headers: {X-Tenant: acme}
    state: {user: {signedIn: true, name: Ada}}
steps:
  - text: pong
`;

/** Writes TENANT_SCENARIO into a new temporary directory and returns the directory. */
export function tenantScenarioDir() {
  return writeTempFiles({ 'tenant-ping.yaml': TENANT_SCENARIO });
}

/**
 * A confirmation interrupt that expires 50 ms after the start of the run that raises it:
 * once expired it can be cancelled but no longer resolved.
 */
export const EXPIRING_SCENARIO = `\
id: expiring-approval
description: Asks for a confirmation that expires after 50 ms.
match:
  message: (?i)^publish now$
examples:
  - message: publish now
steps:
  - text: Publishing needs your go-ahead.
  - interrupt:
      id: publish-001
      message: Publish the video?
      expiresIn: 50ms
      on:
        resolved:
          - text: Published.
        cancelled:
          - text: Not published.
  - text: Done.
`;

/** Writes EXPIRING_SCENARIO into a new temporary directory and returns the directory. */
export function expiringScenarioDir() {
  return writeTempFiles({ 'expiring-approval.yaml': EXPIRING_SCENARIO });
}

/**
 * The seeded trip of testdata/seeded-trip.yaml, which the Go tests play too: a two-run
 * conversation full of what the server's seed decides. "Plan a trip" streams a text and
 * a tool call and pauses on an interrupt about the call; the run that resolves it
 * (payload {name}) streams the tool's result and two more texts.
 */
export const SEEDED_SCENARIO = readFileSync(new URL('../../testdata/seeded-trip.yaml', import.meta.url), 'utf8');

/** Writes SEEDED_SCENARIO into a new temporary directory and returns the directory. */
export function seededScenarioDir() {
  return writeTempFiles({ 'seeded-trip.yaml': SEEDED_SCENARIO });
}

/**
 * Whole templates that keep the JSON type of their result: the request's list and
 * number in the state snapshot, a converted capture in a JSON Patch value and in tool
 * arguments; text around a template keeps it text.
 */
export const TYPED_SCENARIO = `\
id: typed-state
description: Copies the request's items into the state and sets the count the message names.
match:
  message: (?i)add (?P<n>\\d+) items
examples:
  - message: add 2 items
    state: {items: [a, b], count: 3}
steps:
  - state:
      items: "{{ .state.items }}"
      count: "{{ .state.count }}"
      label: "count={{ .state.count }}"
  - stateDelta:
      - {op: replace, path: /count, value: "{{ int .captures.n }}"}
      - {op: add, path: /done, value: "{{ bool \`true\` }}"}
  - custom: {name: typed, value: "{{ .state.items }}"}
  - text: Added {{ int .captures.n }} items.
  - tool:
      name: add_items
      args: {items: "{{ .state.items }}", n: "{{ int .captures.n }}"}
      result: {ok: true}
`;

/** Writes TYPED_SCENARIO into a new temporary directory and returns the directory. */
export function typedScenarioDir() {
  return writeTempFiles({ 'typed-state.yaml': TYPED_SCENARIO });
}

/** The seed's multimodal user message: a text part and the API's own mixcut_assets part. */
export const MIXCUT_CONTENT = [
  { type: 'text', text: 'Help me mash up these assets' },
  {
    type: 'mixcut_assets',
    metadata: { attachments: [{ url: ' http://example.com/video-a.mp4' }, { fileId: 'vod-file-001' }] },
  },
];

// Both dialects in one file: the LangGraph scenario, and a standard one.
export const MIXED_DIALECTS = `\
id: lg-publish
dialect: langgraph
match: {message: publish}
steps:
  - text: The draft is ready.
  - interrupt:
      id: int-publish
      message: Publish the post?
      metadata: {draft: post-7}
      on:
        - payload: {approved: true}
          steps: [{text: "Published {{ .answer.payload.title }}."}]
        - steps: [{text: Not published.}]
  - text: Anything else?
---
id: std-archive
dialect: agui
match: {message: archive}
steps:
  - interrupt:
      id: int-archive
      message: Archive the post?
      on:
        resolved: [{text: Archived.}]
        cancelled: [{text: Kept.}]
`;


/**
 * The scenario docs/scenarios.md shows under the given id (a yaml block that starts with
 * `id: <id>`), as written, so that a test plays what the documentation says.
 */
export function documentedScenario(id) {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'scenarios.md'), 'utf8');
  const block = doc.match(new RegExp('```yaml\\n(id: ' + id + '\\n[\\s\\S]*?)```'));
  if (!block) throw new Error(`docs/scenarios.md shows no scenario with id ${id}`);
  return block[1];
}

/** The subagent examples of docs/scenarios.md: a delegation with a failing subagent, and an interrupt inside one. */
export const SUBAGENT_SCENARIOS = { 'trip.yaml': documentedScenario('trip'), 'pay.yaml': documentedScenario('pay') };
