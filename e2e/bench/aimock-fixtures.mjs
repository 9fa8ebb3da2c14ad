// Serves the fixtures `go run ./bench/suite -aimock FILE` writes from CopilotKit's AGUIMock
// (the peer tool), for bench/fixtures.sh: the equivalent of a directory of recorded and
// hand-written scenario files. Each fixture is registered in the file's order, which
// AGUIMock tries them in: its pattern (with its flags) must be found in the last user
// message, and a fixture with forwardedProps matches only a request whose forwardedProps
// have those members, as the scenario does. The events are sent as written, without
// delays.
//
// Usage: node e2e/bench/aimock-fixtures.mjs FIXTURES.json [PORT]
// Prints its URL once every fixture is registered, then serves until killed.
import { readFileSync } from 'node:fs';
import { AGUIMock } from '@copilotkit/aimock';

const [file, port = '0'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node aimock-fixtures.mjs FIXTURES.json [PORT]');
  process.exit(2);
}
const fixtures = JSON.parse(readFileSync(file, 'utf8'));
const mock = new AGUIMock({ host: '127.0.0.1', port: Number(port) });
for (const f of fixtures) {
  const match = { message: new RegExp(f.pattern, f.flags) };
  if (f.forwardedProps) {
    const wanted = Object.entries(f.forwardedProps);
    match.predicate = (input) => wanted.every(([k, v]) => input.forwardedProps?.[k] === v);
  }
  mock.addFixture({ match, events: f.events });
}
const url = await mock.start();
console.log(`aimock listening on ${url} with ${fixtures.length} fixtures`);
