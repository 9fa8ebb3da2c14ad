// Serves the comparison's workloads from CopilotKit's AGUIMock (the peer tool),
// with the same events and gaps as bench/scenarios: one streamed text message of 500
// events without delay (burst), of 204 (burst204), of 5 (short), of 7 (short7: its three
// deltas are those of short7.yaml's text by agui-mock's default chunking), of 20 events
// 50 ms apart (gap), and of 20 events a second apart (hold).
// Prints its URL, then serves until killed.
import { AGUIMock } from '@copilotkit/aimock';

const port = Number(process.argv[2] ?? 0);
const mock = new AGUIMock({ host: '127.0.0.1', port });
const text = (n) => [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
  ...Array.from({ length: n }, (_, i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `w${i} ` })),
  { type: 'TEXT_MESSAGE_END', messageId: 'm' },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
];
mock.onRun(/^burst$/, text(496), 0);
mock.onRun(/^burst204$/, text(200), 0);
mock.onRun(/^short$/, text(1), 0);
mock.onRun(/^short7$/, text(3).map((e) => (e.delta === 'w2 ' ? { ...e, delta: 'w2' } : e)), 0);
mock.onRun(/^gap$/, text(16), 50);
mock.onRun(/^hold$/, text(16), 1000);
const url = await mock.start();
console.log(`aimock listening on ${url}`);
