// The image with what e2e setups mount into it, and what goes wrong with mounts and
// ports: record mode writes into a mounted directory files the host can read; a scenario
// directory that is missing or unreadable, a read-only record volume and a port in use
// stop the container with exit 1 and one JSON log line that says why — except a bind
// mount of a missing host path, which docker creates empty, so the built-in set is served.
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js).

import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { runInput } from './admin.js';
import { describeUnless, IMAGE, NONROOT, removeAtExit, runContainer, skipReason, waitReady } from './docker.js';
import { makeTempDir } from './harness.js';
import { closedPort, recordings, startFakeUpstream } from './recording.js';
import { postRun, streamedTexts } from './threads.js';

/**
 * Runs the image with options, expects it to exit 1, and returns its one log line,
 * parsed: a JSON record, like every other line the image logs.
 */
async function exitRecord(options) {
  const container = await runContainer(options);
  try {
    assert.equal(await container.wait(), 1);
    const { stdout, stderr } = await container.logs();
    assert.deepEqual(stdout, []);
    assert.equal(stderr.length, 1, `one log line, got:\n${stderr.join('\n')}`);
    const record = JSON.parse(stderr[0]);
    assert.equal(record.level, 'ERROR');
    return record;
  } finally {
    await container.remove();
  }
}

/** Starts a server on 127.0.0.1 of the host's network, where the container can reach it. */
async function hostNetworkContainer(options) {
  const port = await closedPort();
  const container = await runContainer({ ...options, network: 'host', env: { AGUI_MOCK_ADDR: `127.0.0.1:${port}`, ...options.env } });
  container.url = `http://127.0.0.1:${port}`;
  return container;
}

describeUnless(skipReason, `the ${IMAGE} container with volumes`, () => {
  test('record mode writes its recordings into a mounted directory, readable by the host', async () => {
    const upstream = await startFakeUpstream();
    const dir = makeTempDir('agui-mock-container-record-');
    chmodSync(dir, 0o777); // writable by the container's user, as the docs say
    const recorder = await hostNetworkContainer({
      label: 'record',
      command: ['record'],
      env: { AGUI_MOCK_UPSTREAM: upstream.url, AGUI_MOCK_RECORD_DIR: '/recordings' },
      volumes: [`${dir}:/recordings`],
    });
    try {
      await waitReady(recorder);
      const { events } = await postRun(recorder, runInput('record me'));
      assert.deepEqual(streamedTexts(events), ['Hello from upstream.']);
      await recorder.stop();
      const files = recordings(dir);
      assert.equal(files.length, 1, `recordings: ${files}`);
      const file = path.join(dir, files[0]);
      const { mode, uid } = statSync(file);
      assert.equal(uid, NONROOT, 'written by the container\'s user');
      assert.equal(mode & 0o444, 0o444, `mode ${(mode & 0o777).toString(8)}: readable by every host user`);
      assert.match(readFileSync(file, 'utf8'), /from upstream/);
    } finally {
      await recorder.remove();
      await upstream.close();
    }
  });

  test('a scenario directory that does not exist: exit 1, one JSON line', async () => {
    const record = await exitRecord({ label: 'missing', env: { AGUI_MOCK_SCENARIOS: '/scenarios/missing' } });
    assert.equal(record.msg, 'exiting: scenario directory: stat /scenarios/missing: no such file or directory');
  });

  test('a bind mount of a missing host path: docker creates it empty, and the built-in set is served', async () => {
    const missing = path.join(makeTempDir('agui-mock-container-'), 'missing');
    removeAtExit(missing); // docker creates it as root
    const mock = await runContainer({ label: 'empty-mount', volumes: [`${missing}:/scenarios:ro`] });
    try {
      await waitReady(mock);
      assert.ok(existsSync(missing));
      const ready = (await mock.records()).find((r) => r.msg === 'ready');
      assert.ok(ready.scenarios > 0, 'the built-in scenarios are served');
    } finally {
      await mock.remove();
    }
  });

  test('a mounted scenario directory that user 65532 cannot read: exit 1, one JSON line', async () => {
    const dir = makeTempDir('agui-mock-container-unreadable-');
    chmodSync(dir, 0o700); // the host user's own, as a fresh directory often is
    const record = await exitRecord({ label: 'unreadable', volumes: [`${dir}:/scenarios:ro`] });
    assert.equal(record.msg, `exiting: scenario directory /scenarios cannot be read by uid ${NONROOT}: open /scenarios: permission denied`);
  });

  test('a read-only record volume: exit 1, one JSON line', async () => {
    const dir = makeTempDir('agui-mock-container-ro-');
    chmodSync(dir, 0o777); // writable but for the mount's :ro
    const record = await exitRecord({
      label: 'readonly-record',
      command: ['record'],
      env: { AGUI_MOCK_UPSTREAM: 'http://127.0.0.1:9', AGUI_MOCK_RECORD_DIR: '/recordings' },
      volumes: [`${dir}:/recordings:ro`],
    });
    assert.equal(record.msg, `exiting: -record-dir "/recordings" must be writable by uid ${NONROOT}: read-only file system`);
  });

  test('a port already in use: exit 1, one JSON line', async () => {
    const taken = net.createServer();
    await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = taken.address().port;
    try {
      const record = await exitRecord({ label: 'port-in-use', network: 'host', env: { AGUI_MOCK_ADDR: `127.0.0.1:${port}` } });
      assert.equal(record.msg, `exiting: listen: listen tcp 127.0.0.1:${port}: bind: address already in use`);
    } finally {
      taken.close();
    }
  });
});
