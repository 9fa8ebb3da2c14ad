// The suite a real agent that answers the same script is put through: its conversations
// asked directly (the ground truth), recorded with `agui-mock record` along with a run
// the user stops before saying something else, replayed to the real HttpAgent from the
// recorded directory served with the built-in scenarios, and verified against the live
// agent (pass) and against one whose tool was renamed (drift). The agents differ in their
// conversations, in how many runs the recorder writes, and in what the client warns of.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { journalEntry } from './admin.js';
import { agentsInstalled, startAgent } from './agents.js';
import { CLIENTS, Conversation } from './clients.js';
import { makeTempDir, startServer } from './harness.js';
import { assertAccepted, assertReplayed, ends, recordedLines, say, shown, statuses, textOf, verify } from './realagents.js';
import { assertValid, canonical, recordings, startRecorder } from './recording.js';

// The stopped run and the turn after it; the scenario names the suite looks for are made from them.
const STORY = 'Tell me a story';
const NEXT = 'Hello there';
const STOP_AFTER = 5; // events the user sees before pressing Stop (a few more already on their way arrive too)

const [current] = CLIENTS;

/** What the scripted agents answer a greeting with, and their weather tool's result. */
export const GREETING = 'Hello! Ask me about the weather, or for a story.';
const WEATHER = { city: 'Paris', temperature: 21, conditions: 'sunny' };

/**
 * The conversations every scripted agent holds, for describeRecordedAgent: a plain
 * answer, a tool call and a follow-up, and the same follow-up question after another
 * first turn, answered from its own thread. The agents differ only in how the client
 * shows the tool-call turn: weatherTurn(toolName, weather) is the messages between the
 * user's question and the next user message.
 */
export function scriptedConversations(weatherTurn) {
  return {
    async 'plain text'(url, check) {
      const conv = new Conversation(current, { url, speed: null });
      const runs = [await conv.send('Hello', { runId: randomUUID() })];
      runs.forEach(check);
      assert.deepEqual(shown(conv.agent.messages), [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: GREETING },
      ]);
      return { conv, runs };
    },

    async 'tool call, then a follow-up'(url, check, toolName = 'get_weather') {
      const conv = new Conversation(current, { url, speed: null });
      const runs = [await conv.send('What is the weather in Paris?', { runId: randomUUID() })];
      runs.push(await conv.send('What did I say?', { runId: randomUUID() }));
      runs.forEach(check);
      assert.deepEqual(shown(conv.agent.messages), [
        { role: 'user', content: 'What is the weather in Paris?' },
        ...weatherTurn(toolName, JSON.stringify(WEATHER)),
        { role: 'user', content: 'What did I say?' },
        { role: 'assistant', content: 'You said: "What is the weather in Paris?".' },
      ]);
      return { conv, runs };
    },

    async 'follow-up'(url, check) {
      const conv = new Conversation(current, { url, speed: null });
      const runs = [await conv.send('Good morning', { runId: randomUUID() })];
      runs.push(await conv.send('What did I say?', { runId: randomUUID() }));
      runs.forEach(check);
      assert.deepEqual(shown(conv.agent.messages), [
        { role: 'user', content: 'Good morning' },
        { role: 'assistant', content: GREETING },
        { role: 'user', content: 'What did I say?' },
        { role: 'assistant', content: 'You said: "Good morning".' },
      ]);
      return { conv, runs };
    },
  };
}

/** Asserts that the client wrote nothing to console.warn. */
const warnedOfNothing = (warnings) => assert.deepEqual(warnings, [], 'the client warned of nothing');

/**
 * Declares the suite for the agent e2e/agents/<script> (whose AGENT_TOOL_NAME renames its
 * get_weather tool), unless the real agents are not installed (label says which test was
 * skipped):
 *  - title: the suite's name; tempPrefix: that of its fixtures directory;
 *  - conversations: name → async (url, check) => ({conv, runs}) (scriptedConversations and
 *    the agent's own), each holding its
 *    conversation with url, calling check on each run and asserting what the user sees
 *    at its end; the one that asks "What is the weather in Paris?" alone calls the tool;
 *  - recordedRuns: how many runs the recorder writes: the conversations' and the two said
 *    here, all complete but the stopped one;
 *  - check: given assertAccepted or assertReplayed, the check each conversation's runs
 *    get (by default that assertion);
 *  - finishedWarnings: asserts what the client wrote to console.warn during a run said
 *    here that finished (by default: nothing).
 */
export function describeRecordedAgent({
  label,
  title,
  script,
  tempPrefix,
  conversations,
  recordedRuns,
  check = (assertion) => assertion,
  finishedWarnings = warnedOfNothing,
}) {
  if (!agentsInstalled(label)) return;
  describe(title, () => {
    let agent;
    const fixtures = makeTempDir(tempPrefix);
    const truth = {};
    const live = {};
    before(async () => {
      agent = await startAgent(script);
    });
    after(() => agent?.stop());

    test('the agent, asked directly, holds each conversation (the ground truth)', async () => {
      for (const [name, converse] of Object.entries(conversations)) truth[name] = shown((await converse(agent.url, check(assertAccepted))).conv.agent.messages);
    });

    test('agui-mock record records each conversation, and a stopped run with the turn after it', async () => {
      const recorder = await startRecorder(agent.url, fixtures);
      try {
        for (const [name, converse] of Object.entries(conversations)) {
          const { conv } = await converse(recorder.url, check(assertAccepted));
          assert.deepEqual(shown(conv.agent.messages), truth[name], `${name}: through the recorder`);
        }
        const client = new HttpAgent({ url: `${recorder.url}/agui/chat` });
        live.story = await say(client, STORY, (events) => events.length === STOP_AFTER);
        assert.deepEqual(ends(live.story.events), [], `the story was stopped before its end: ${JSON.stringify(live.story.events)}`);
        assert.ok(textOf(live.story.seen).length > 0, `the user saw some of the story: ${JSON.stringify(live.story.seen)}`);
        live.next = await say(client, NEXT);
        assert.equal(live.next.events.at(-1).type, 'RUN_FINISHED');
        assert.equal(textOf(live.next.events), GREETING);
        warnedOfNothing(live.story.warnings);
        finishedWarnings(live.next.warnings);
        live.messages = shown(client.messages);
        const lines = await recordedLines(recorder, recordedRuns);
        assert.equal(lines.length, recordedRuns, recorder.output.join('\n'));
        const stopped = lines.filter((line) => /stopped by the client: it replays its events, then holds the stream open/.test(line));
        assert.equal(stopped.length, 1, lines.join('\n'));
        assert.equal(lines.filter((line) => line.includes(', complete, ')).length, recordedRuns - 1, lines.join('\n'));
      } finally {
        await recorder.stop();
      }
      await assertValid(fixtures);
      const story = recordings(fixtures).find((f) => f.startsWith('tell-me-a-story-'));
      assert.ok(story, `recordings: ${recordings(fixtures)}`);
      live.storyFile = readFileSync(path.join(fixtures, story), 'utf8');
      assert.match(live.storyFile, /^stopped: the client stopped the run while it was recorded, after \d+ events$/m);
      assert.doesNotMatch(live.storyFile, /RUN_FINISHED|RUN_ERROR|^broken:/m);
    });

    test('the recorded directory, served with the built-in scenarios, replays each conversation as it was', async () => {
      assert.ok(live.storyFile, 'the session was recorded');
      const replay = await startServer(['--scenarios', fixtures]);
      try {
        for (const [name, converse] of Object.entries(conversations)) {
          const { conv, runs } = await converse(replay.url, check(assertReplayed));
          assert.deepEqual(shown(conv.agent.messages), truth[name], `${name}: replayed`);
          for (const run of runs) {
            const entry = await journalEntry(replay, (e) => e.runId === run.runId);
            assert.match(entry.scenario ?? '', /^rec-/, `${name}: answered by ${entry.scenario}, not a recording`);
          }
        }

        const recordedText = [...live.storyFile.matchAll(/delta: '((?:[^']|'')*)'/g)].map((m) => m[1].replaceAll("''", "'")).join('');
        assert.ok(recordedText.startsWith(textOf(live.story.seen)), `the fixture holds ${JSON.stringify(recordedText)}`);
        const client = new HttpAgent({ url: `${replay.url}/agui/chat` });
        // The user waits for every recorded word, then presses Stop again.
        const story = await say(client, STORY, (events) => textOf(events) === recordedText);
        assert.deepEqual(ends(story.events), [], `the stopped run sends no terminal event: ${JSON.stringify(story.events)}`);
        assert.deepEqual(canonical(story.seen.slice(0, live.story.seen.length)), canonical(live.story.seen), 'the recorded events, as the user saw them live');
        const storyEntry = await journalEntry(replay, (e) => e.runId === story.runId);
        assert.match(storyEntry.scenario ?? '', /^rec-tell-me-a-story-/, `answered by ${storyEntry.scenario}, not the recording`);
        assert.equal(storyEntry.outcome, 'cancelled', 'the run was held open until the client left');
        const next = await say(client, NEXT);
        assert.equal(next.events.at(-1).type, 'RUN_FINISHED');
        assert.equal(textOf(next.events), textOf(live.next.events));
        warnedOfNothing(story.warnings);
        finishedWarnings(next.warnings);
        const nextEntry = await journalEntry(replay, (e) => e.runId === next.runId);
        assert.match(nextEntry.scenario ?? '', /^rec-hello-there-/, `answered by ${nextEntry.scenario}, not the recording`);
        assert.deepEqual(shown(client.messages).at(-1), live.messages.at(-1), 'the turn after the stopped run, as the user saw it live');
      } finally {
        await replay.stop();
      }
    });

    test('verify: the fixtures pass against the live agent, the stopped run skipped', async () => {
      const count = recordings(fixtures).length;
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, fixtures);
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /skipped: scenario rec-tell-me-a-story-\S+: its run stops without a terminal event, which no live run of the agent reproduces/);
      assert.match(stdout, new RegExp(`${count - 1} scenario\\(s\\) verified: ${count - 1} pass, 0 drift, 0 error; 1 skipped\\n$`));
    });

    describe('after the agent renamed its tool', () => {
      let changed;
      before(async () => {
        changed = await startAgent(script, { AGENT_TOOL_NAME: 'lookup_weather' });
      });
      after(() => changed?.stop());

      test('verify reports the drift of the conversation that calls it alone', async () => {
        const { code, stdout, stderr } = await verify('--upstream', `${changed.url}/agui/chat`, '--format', 'json', fixtures);
        assert.equal(code, 1, stdout + stderr);
        const results = JSON.parse(stdout).results;
        const byScenario = statuses(results);
        const expected = Object.fromEntries(Object.keys(byScenario).map((id) => [id, id === 'rec-what-is-the-weather-in-paris' ? 'drift' : 'pass']));
        assert.equal(byScenario['rec-what-is-the-weather-in-paris'], 'drift', stdout);
        assert.deepEqual(byScenario, expected, stdout);
        const drift = results.find((r) => r.status === 'drift');
        assert.equal(drift.difference, 'example 1, turn 1: the agent now sends TOOL_CALL_START lookup_weather where the fixture has TOOL_CALL_START get_weather');
      });
    });
  });
}
