// Package protocol models the AG-UI wire protocol in one place: the run input a client
// posts, the events an agent streams back and their shapes, the rules a stream follows,
// what a message history becomes, the transports (SSE frames, and protobuf frames of
// the .proto in protocol/pb), and what each protocol version of a peer understands.
// The server, the recorder, the load tool and verify all read and write AG-UI through
// it.
//
// # Files
//
// The run input:
//
//   - input.go: RunAgentInput and its parts (Tool, Context, ResumeEntry, and a
//     LangGraph client's Command).
//   - inputdecode.go: DecodeRunAgentInput and DecodeJSON: a body decoded and checked,
//     an InputError naming the member at fault.
//   - jsonvalue.go: the fast decoder of a well-formed JSON body, in one pass.
//   - message.go: a conversation message of any role, its text and tool calls.
//   - utf8.go: CheckUTF8, the check every body passes first.
//   - seed.go: SeededThread, a thread's conversation posted to seed it.
//
// Events:
//
//   - event.go: Event and its fields in the order they were written, and its JSON.
//   - shape.go: the shape of each event type, and the event types known.
//   - stream.go: the event types that carry streamed deltas (StreamedTypes) and the
//     stream a delta belongs to (StreamTracker).
//   - usage.go: a token usage list, and CheckUsage.
//   - outcome.go: Outcome, how a run ended, read from its last event.
//   - order.go: KeyOrder, the order of the members of an event's objects as an agent
//     or a file wrote them.
//   - footprint.go: Footprint, what values and events hold in memory.
//   - uuid.go: NewUUID.
//   - util.go: sortedKeys.
//
// Rules, conversations and continuation:
//
//   - rulecheck.go: RuleChecker, the sequence rules the official clients enforce.
//   - rules.go: the named producer rules real agents break (Rule, BreaksOf).
//   - history.go: Conversation, a thread's messages and state as the official client
//     folds events into them; ApplyPatch, CloneObject.
//   - freeze.go: a conversation kept frozen as JSON while no run streams on it.
//   - continuation.go: which run inputs continue a paused run (IsContinuation), and
//     what a run waits for (Awaited, LegacyInterrupt).
//   - compact.go: CompactEvents, a thread's events shortened as @ag-ui/client does.
//
// Transports and peers:
//
//   - encoder.go: Encoder, the one seam between events and bytes, and SSEEncoder.
//   - sse.go: SSE frames.
//   - reader.go: reading SSE frames and events back.
//   - proto.go: protobuf frames: ProtoEncoder, their reader, and NewEventReader of
//     either transport.
//   - protoencode.go: events written as protobuf messages from the descriptors of
//     protocol/pb, and what the .proto cannot carry (ProtoLosses).
//   - streamfile.go: event stream files as agui-mock validate reads them.
//   - version.go: protocol versions, and adapting events to older peers (Peer).
package protocol
