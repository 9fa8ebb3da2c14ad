import * as v1 from '@ag-ui/client';
import * as v0 from 'ag-ui-client-0.0.58';
const url = 'http://127.0.0.1:18123';
for (const [name, mod] of [['1.0.0', v1], ['0.0.58', v0]]) {
  const agent = new mod.HttpAgent({ url: url + '/agui/chat' });
  agent.messages = [{ id: 'u1', role: 'user', content: 'showcase' }];
  const events = []; let failed, err, res; let aborted = false;
  const t0 = performance.now();
  try {
    res = await agent.runAgent({ runId: 'r1' }, {
      onEvent: ({ event }) => { events.push(event); if (!aborted && /^(TEXT|REASONING)_/.test(event.type)) { aborted = true; agent.abortRun(); } },
      onRunFailed: ({ error }) => { failed = error; },
    });
  } catch (e) { err = e; }
  console.log(name, 'took', Math.round(performance.now()-t0), 'failed', failed, 'err', err, events.map(e=>e.type).join(' '));
  console.log(JSON.stringify(events.at(-1)).slice(0,300), agent.isRunning);
  agent.messages.push({ id: 'u2', role: 'user', content: 'Hello there' });
  agent.headers = {'X-Agui-Mock-Speed': '0'};
  const ev2 = [];
  try { await agent.runAgent({}, { onEvent: ({event}) => ev2.push(event.type), onRunFailed: ({error}) => console.log('fail2', error) }); } catch (e) { console.log('err2', e); }
  console.log(ev2.join(' '));
  // 404
  const a2 = new mod.HttpAgent({ url: url + '/nope' });
  try { await a2.runAgent({}, { onRunFailed: ({error}) => console.log('onRunFailed', error.message, error.status) }); } catch (e) { console.log('rejected', e.message, e.status, JSON.stringify(e.payload)); }
}
