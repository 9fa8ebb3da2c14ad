// Package server is agui-mock's HTTP server. It answers AG-UI run requests with the
// event streams of scenarios, on their timeline, as SSE or protobuf frames; proxies
// them to a real agent and records them when the upstream mode says so; serves the
// routes of the CopilotKit runtime; and has the admin API, the journal and the
// inspector through which tests and people steer and watch it.
//
// # The path of a run
//
// A run request passes the guards first (routes.go): the connection admitted, the
// body's deadline and its room among large bodies (bodygate.go), the journal, CORS,
// the Host check, the admin guard and the Bearer token. Server.run (run.go) then
// takes it along its path:
//
//  1. Decode (runrequest.go): the body becomes a protocol.RunAgentInput, or a 400
//     naming the member at fault; the speed, the fault and the transport (SSE or
//     protobuf) are chosen.
//  2. Upstream mode (upstream.go): play a scenario, or proxy the run to the real
//     agent and record it (recorder.Record), which leaves the path here.
//  3. Select and plan (run.go: startRun, planRun): the thread is claimed, waiting a
//     moment when a run streams there (busy.go); a paused conversation continues its
//     scenario, else a forced scenario or the one the request matches best plays, and
//     Scenario.Plan makes its timed events.
//  4. Play (runlife.go, player.go, stream.go): runLife owns the run's lifetime, from
//     its stream counted in to its end; the player writes each event when it falls
//     due, with breakpoints and fault hooks on the way, and works out the run's
//     outcome once. At its first wait an HTTP/1.1 stream is taken over from net/http
//     and parked: it holds no goroutine while it waits, and ends itself.
//  5. Report (run.go: reportRun): the thread's history, the journal entry, the
//     metrics and the log line all take the run's outcome from the player.
//
// # Files
//
// The server and its routes:
//
//   - server.go: Config, Server, New, Serve and Shutdown.
//   - routes.go: the routes, their middleware, the body deadline, the Bearer token
//     and the error answers (httpError).
//   - cors.go, hosts.go, adminguard.go: the CORS policy, the Host check, and the
//     guard of the admin API (its token, and the browser rule that keeps pages of
//     unlisted origins from others' data).
//   - bodygate.go: room for large bodies among those being handled.
//   - body.go: reading a request's body, within its limit, for the journal too.
//   - errors.go: the one table from a continuation's errors to statuses.
//
// A run:
//
//   - run.go: the path of a run: starting it in its thread, selecting and planning
//     it, and reporting it as it ends.
//   - runrequest.go: a run request read and checked: its headers, content type,
//     speed, transport and input.
//   - runlife.go: runLife, the owner of a run's lifetime on its handler (its context
//     and link to the request, park, finish, abort, release), and the pool of the
//     state streams play with.
//   - busy.go: a run that finds its thread busy waits a moment for it.
//   - catchall.go: why no scenario of the developer's own matched, when a built-in
//     one answers or none does.
//   - upstream.go: the upstream mode: play, proxy or record.
//   - player.go: the player, which writes a plan on its timeline and stops a run cut
//     short.
//   - stream.go: a stream taken over from net/http, woken by a timer when its next
//     event is due.
//   - writer.go: the event writer: frames of the run's encoder, batched and written
//     with a deadline.
//   - faults.go, faulthooks.go, faultrules.go: faults asked for through the admin
//     API or a header, what each kind does to a stream, and the faults that break a
//     protocol rule.
//   - reconnect.go, reconnectserve.go: cursor ids, each run's kept frames and the
//     grace a run waits out for its client; a run request with Last-Event-ID answered
//     with the rest of its run.
//
// The CopilotKit runtime's routes:
//
//   - runtime.go: the routes and the single endpoint's envelope.
//   - runtimeinfo.go: what GET /info answers, and its shape set through the admin
//     API.
//   - runtimeconnect.go: connect, stop and the thread routes.
//
// Threads, test control and the journal:
//
//   - threads.go: a thread's history and the cancel endpoint.
//   - seed.go: threads seeded through the admin API or from files.
//   - admin.go: the admin API's endpoints.
//   - adminbody.go: decoding an admin call's JSON body, its errors in words.
//   - reload.go: reloading the scenario set, and its load status.
//   - journal.go: the journal middleware and its entries.
//   - journallist.go: the journal's pages.
//   - journalfeed.go: the journal stream, and the progress of runs.
//   - runrecord.go: each run's events with their offsets, within a byte budget.
//   - inspector.go: the inspector page, embedded from inspector/.
//   - metrics.go: the Prometheus metrics.
package server
