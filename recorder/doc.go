// Package recorder proxies AG-UI runs to a real upstream agent, relays its events to
// the client as they arrive, and writes each session (the runs of one thread) as a
// scenario file in the explicit events form, with its timing, that agui-mock replays:
// secrets redacted, ids templated wherever they stand whole, a later run of a thread
// placed as a branch of its session's first run, never over another session's file.
//
// # Files
//
// A run, from the client to the agent and back:
//
//   - recorder.go: Config, Recorder and Record, which proxies one run, relays it and
//     saves it.
//   - upstream.go: the request forwarded to the agent (the client's headers, without
//     redirects), Proxy for what is not a run, and ErrorAnswer.
//   - frames.go: the frames of the agent's stream, SSE or protobuf.
//   - relay.go: relay, which copies the agent's frames to the client and checks them
//     against the protocol.
//   - capture.go: the events kept of a run, within the recording's bounds.
//
// A run, written:
//
//   - session.go: what the recorder remembers of a thread (session), and a run placed
//     in it: continuing the session's fixture or starting it, its file's name, its
//     first scenario and example, and the runs not recorded.
//   - fixture.go: a run's events templated for its fixture: ids, the client's own
//     messages in snapshots.
//   - turns.go: a later turn's conversation, which its scenario matches.
//   - stopped.go: a session's first run the client stopped, written as a stopped
//     scenario, and other unfinished runs kept apart.
//   - breaks.go: the named producer rules a run breaks, recorded as sent and marked.
//   - redact.go: secrets found and redacted, split secrets across a stream's deltas
//     included.
//   - replace.go: Replace, a re-recording put in place of one scenario of a file
//     (verify --update).
package recorder
