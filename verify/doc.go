// Package verify checks scenario files against a live AG-UI agent, for agui-mock
// verify: it sends each example's request to the agent, every turn of the
// conversation, answering interrupts and frontend tools as the scenario's branches
// do, and compares the structure of the agent's stream with what the scenario plays
// for the same request (see Shape). It can re-record a scenario that no longer
// matches (see Update).
//
// # Files
//
//   - verify.go: Config, Run and the Report: each example's conversation held with
//     the agent and played by its scenario, turn by turn and branch by branch.
//   - agent.go: the live agent, asked as @ag-ui/client's HttpAgent asks it.
//   - shape.go: Shape, the structure of a run's stream (its events, tool calls
//     streamed or inside a MESSAGES_SNAPSHOT, state paths, interrupts, ending), read
//     by ShapeOf.
//   - compare.go: Compare, the differences between two shapes, with the timing and
//     text its Options ask for.
//   - breaks.go: the named producer rules the agent breaks, compared with those the
//     scenario's run breaks: a warning, or drift.
//   - report.go: the report in text, JSON and JUnit.
//   - update.go: Update, re-recording drifted scenarios through the recorder.
package verify
