// Scenario files the tests write for servers started with --scenarios.

import { writeTempFiles } from './harness.js';

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
 * A two-run conversation full of what the server's seed decides: fake data, generated
 * ids (of messages, a tool call and an interrupt) and jittered timing. "Plan a trip"
 * streams a text and a tool call and pauses on an interrupt about the call; the run that
 * resolves it (payload {name}) streams the tool's result and two more texts.
 */
export const SEEDED_SCENARIO = `\
id: seeded-trip
description: A trip planned with fake data, paused for the booking's approval.
match:
  message: (?i)^plan a trip$
timing: {tokensPerSecond: 20, jitter: 0.5}
steps:
  - text: '{{ Name }} from {{ City }} will be your guide ({{ id "guide" }}).'
  - tool: {name: book, args: {guide: '{{ id "guide" }}'}}
    id: booking
  - interrupt:
      - message: Book with {{ Company }}?
        toolCall: booking
        expiresIn: 10m
        on:
          resolved:
            - toolResult: '{"ref":"{{ UUID }}"}'
            - text: Booked for {{ .answer.payload.name }} with {{ FirstName }}, seat {{ Number 1 99 }}.
          cancelled:
            - text: Not booked.
  - text: '{{ Sentence 6 }}'
`;

/** Writes SEEDED_SCENARIO into a new temporary directory and returns the directory. */
export function seededScenarioDir() {
  return writeTempFiles({ 'seeded-trip.yaml': SEEDED_SCENARIO });
}
