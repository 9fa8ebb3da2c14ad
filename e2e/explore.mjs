import * as v1 from '@ag-ui/client';
import * as v0 from 'ag-ui-client-0.0.58';
const url = 'http://127.0.0.1:18123';
const cases = [
  ['Search for ocean wave videos', {scenario_name:'video-mixcut'}, []],
  ['showcase', {}, []],
  ['fail please', {}, []],
  ['ask me something', {}, ['clarify']],
  ['rewrite that', {}, []],
  ['explicit please', {}, []],
  ['Hello there', {}, []],
];
for (const [name, mod] of [['1.0.0', v1], ['0.0.58', v0]]) {
  for (const [msg, fp, tools] of cases) {
    const agent = new mod.HttpAgent({ url: url + '/agui/chat', headers: {'X-Agui-Mock-Speed': '0'} });
    agent.messages = [{ id: 'u1', role: 'user', content: msg }];
    const events = []; let failed;
    let res, err;
    try {
      res = await agent.runAgent({ runId: 'r1', forwardedProps: fp, tools: tools.map(n => ({name: n, description: n, parameters: {type:'object', properties:{}}})) }, {
        onEvent: ({ event }) => { events.push(event); },
        onRunFailed: ({ error }) => { failed = error; },
      });
    } catch (e) { err = e; }
    console.log(`=== ${name} ${msg}: failed=${failed} err=${err} result=${JSON.stringify(res?.result)}`);
    console.log(events.map(e => e.type + (Number.isInteger(e.timestamp) ? '' : '(no ts)')).join(' '));
    console.log(JSON.stringify(agent.messages));
    console.log(JSON.stringify(agent.state));
  }
}
