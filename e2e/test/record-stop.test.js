// (r) A Stop button, recorded and replayed: a real Mastra agent (e2e/agents/mastra-agent.js,
// a scripted model that tells a story a word at a time) behind `agui-mock record`, and
// @ag-ui/client's HttpAgent, whose user stops the story after a few events and then says
// something else. The replay of the recorded directory, served as a user serves it (the
// built-in scenarios loaded too), plays the stopped run's events and then holds its stream
// open without RUN_FINISHED or RUN_ERROR until the client stops it again, and the next
// turn replays as recorded: no built-in scenario answers any run of the session.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { journalEntry } from './admin.js';
import { agentsInstalled, startAgent } from './agents.js';
import { makeTempDir, startServer } from './harness.js';
import { ends, recordedLines, say, textOf, verify } from './realagents.js';
import { assertValid, canonical, listFiles, recordings, startRecorder } from './recording.js';

const STORY = 'Tell me a story';
const NEXT = 'Hello there';
const STOP_AFTER = 5; // events the user sees before pressing Stop (a few more already on their way arrive too)

if (agentsInstalled('a run stopped while recording')) {
  describe('a run the user stopped while recording', () => {
    let agent;
    const dir = makeTempDir('agui-mock-stopped-');
    const live = {};
    before(async () => {
      agent = await startAgent('mastra-agent.js');
    });
    after(() => agent?.stop());

    test('is recorded as a stopped scenario beside the next turn, nothing kept apart', async () => {
      const recorder = await startRecorder(agent.url, dir);
      try {
        const client = new HttpAgent({ url: `${recorder.url}/agui/chat` });
        live.story = await say(client, STORY, (events) => events.length === STOP_AFTER);
        assert.deepEqual(ends(live.story.events), [], `the story was stopped before its end: ${JSON.stringify(live.story.events)}`);
        live.next = await say(client, NEXT);
        assert.equal(live.next.events.at(-1).type, 'RUN_FINISHED');
        const lines = await recordedLines(recorder, 2);
        assert.equal(lines.length, 2, recorder.output.join('\n'));
        assert.match(lines[0], /stopped by the client: it replays its events, then holds the stream open/);
        assert.match(lines[1], /, complete, /);
      } finally {
        await recorder.stop();
      }
      assert.deepEqual(listFiles(dir).filter((f) => f.startsWith('.')), [], 'nothing is kept apart in .incomplete');
      assert.equal(recordings(dir).length, 2, `recordings: ${recordings(dir)}`);
      await assertValid(dir);
      const file = recordings(dir).find((f) => f.startsWith('tell-me-a-story-'));
      const text = readFileSync(path.join(dir, file), 'utf8');
      assert.match(text, /^stopped: the client stopped the run while it was recorded, after \d+ events$/m);
      assert.doesNotMatch(text, /RUN_FINISHED|RUN_ERROR|^broken:/m);
      live.storyFile = text;
    });

    test('replays the stopped run, then holds it open until the client stops it again; the next turn replays', async () => {
      assert.ok(live.storyFile, 'the session was recorded');
      // served as a user serves a recording: the built-in scenarios, catch-all included, loaded too
      const replay = await startServer(['--scenarios', dir]);
      try {
        const recordedText = [...live.storyFile.matchAll(/delta: '((?:[^']|'')*)'/g)].map((m) => m[1].replaceAll("''", "'")).join('');
        assert.ok(recordedText.startsWith(textOf(live.story.seen)), `the fixture holds ${JSON.stringify(recordedText)}`);
        const recordedEvents = live.storyFile.match(/^ {2}- \{delay: \d+, type: /gm).length;
        const client = new HttpAgent({ url: `${replay.url}/agui/chat` });
        // The user waits for every recorded word, then presses Stop again.
        const story = await say(client, STORY, (events) => textOf(events) === recordedText);
        assert.deepEqual(ends(story.events), [], `the stopped run sends no terminal event: ${JSON.stringify(story.events)}`);
        assert.deepEqual(canonical(story.seen.slice(0, live.story.seen.length)), canonical(live.story.seen), 'the recorded events, as the user saw them live');
        assert.equal(textOf(story.seen), recordedText);
        const storyEntry = await journalEntry(replay, (e) => e.runId === story.runId);
        assert.match(storyEntry.scenario ?? '', /^rec-tell-me-a-story-/, `answered by ${storyEntry.scenario}, not the recording`);
        assert.equal(storyEntry.outcome, 'cancelled', 'the run was held open until the client left');
        assert.equal(storyEntry.events, recordedEvents, 'every recorded event, and nothing after them');

        const next = await say(client, NEXT);
        assert.equal(next.events.at(-1).type, 'RUN_FINISHED');
        assert.equal(textOf(next.events), textOf(live.next.events));
        const nextEntry = await journalEntry(replay, (e) => e.runId === next.runId);
        assert.match(nextEntry.scenario ?? '', /^rec-hello-there-/, `answered by ${nextEntry.scenario}, not the recording`);
        assert.doesNotMatch(JSON.stringify(client.messages), /lorem|ipsum/i);
      } finally {
        await replay.stop();
      }
    });

    test('verify skips the stopped run, saying why, and passes the next turn', async () => {
      assert.ok(live.storyFile, 'the session was recorded');
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, dir);
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /skipped: scenario rec-tell-me-a-story-\S+: its run stops without a terminal event, which no live run of the agent reproduces/);
      assert.match(stdout, /1 scenario\(s\) verified: 1 pass, 0 drift, 0 error; 1 skipped\n$/);
    });
  });
}
