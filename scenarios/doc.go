// Package scenarios loads YAML scenario files, selects the scenario that answers a run
// request, and turns it into a timed plan of AG-UI events.
//
// A load reads the files of its sources, parses each document into a Scenario, dry-runs
// every scenario (its first run and each branch of its continuations), orders the set
// by precedence and indexes it, then checks that each example selects its own scenario.
// A request then goes through Set.Select (or Continue, for a run that answers a paused
// one), and Scenario.Plan makes the run's events with their offsets.
//
// # Files
//
// Reading files:
//
//   - read.go: walk a Source, read scenario files (regular files only, within
//     MaxFileBytes), parse them in parallel.
//   - yamldoc.go: a YAML document before it is read: the line of a syntax error and its
//     hint, duplicate keys, aliases and merge keys.
//   - yamlnode.go: values read from YAML nodes (fields, strings, numbers, durations,
//     patterns, literals), each problem reported at its position.
//   - parse.go: one document into a Scenario: its id, match, timing, examples, and the
//     steps or events form.
//   - keys.go: the keys of a scenario file, which the parser reads and the writer
//     writes.
//   - breaks.go: a scenario's breaks, the producer rules its runs break on purpose.
//   - threaddoc.go: thread documents, the conversations of a scenario directory every
//     test starts from.
//   - eventfloor.go: the fewest events a scenario's first run sends, counted from its
//     YAML tree, so that one past MaxRunEvents is refused before it is built.
//   - diagnostic.go: problems with their positions.
//   - scenario.go, embed.go: the Scenario, Example and Timing types; the built-in set
//     and the schema.
//
// A set:
//
//   - set.go, examples.go: Load, LoadRemembering and NewSet: gather the sources, refuse
//     repeated ids, dry-run every scenario (but those the last set dry-ran), order by
//     precedence, index; check each example's selection again only where its outcome can
//     have changed.
//   - memory.go, refusals.go: what a series of loads keeps for the next (files not read
//     or parsed again, the last valid set's dry runs) and the files it refused, by their
//     content.
//   - dryrun.go, sample.go, stopped.go: the load-time dry run: plan a sample request and
//     every branch of its continuations, and check the events against the AG-UI rules
//     (protocol.RuleChecker); a stopped scenario's as a run under way.
//
// Selecting:
//
//   - requestparts.go: the table of request parts (criteria): for each, its key in a
//     match and an example, how a match tests it and explains a miss, how it is sent,
//     written and offered by the recorder.
//   - match.go: Match, Select and Force, and the no_scenario candidates.
//   - conversation.go: a match's conversation, every message of the request in order.
//   - index.go: the index that finds the few scenarios a request may match.
//   - closest.go: the "did you mean" of misspelt names, and why none of the developer's
//     own scenarios matched when a built-in one answers (Set.MissedOwn).
//   - example.go: an example as a run request (Example.RunInput, RunRoute, RunHeader).
//
// Steps, one file per kind, each with its type, parser and emit:
//
//   - steps.go: the table of step kinds (stepKinds), the list and the options every
//     step takes.
//   - steptext.go, stepreasoning.go, steptool.go, steptoolresult.go, stepinterrupt.go,
//     stepstate.go, stepstatedelta.go, stepmessages.go, stepactivity.go,
//     stepactivitydelta.go, stepspan.go, stepsubagent.go, stepcustom.go, stepraw.go,
//     steperror.go, steppause.go, stepfault.go: the kinds.
//   - stepevent.go: the event step, and each event of the explicit form in the member
//     order written.
//   - stepcases.go: the on cases of tool and interrupt steps.
//   - explicit.go: the explicit form's events and its next continuations.
//   - value.go: JSON values whose strings may be templates.
//
// Templates:
//
//   - template.go: what templates read (their roots) and how the parser compiles and
//     checks them.
//   - templatefuncs.go: the functions templates may call.
//   - templateplain.go: templates rendered without text/template.
//   - templaterender.go: rendering in a run, within the run's budget.
//   - budget.go: the limits of a run's templates (Limits).
//
// Planning a run:
//
//   - plan.go: the plan API: Request, Plan, PlanOptions, Start, Scenario.Plan.
//   - planner.go: the planner, which turns steps into timed events.
//   - play.go, frames.go: a scenario's steps played frame by frame, or its explicit
//     events; the frames of subagents.
//   - chunk.go: how a streamed text is cut into deltas.
//   - speed.go: the server's speed factor.
//   - usage.go: a scenario's token usage, given or estimated.
//   - fault.go, faultend.go: the table of fault kinds and their parameters; a fault
//     step that rewrites the run's end, checked as the run is planned.
//
// Conversations:
//
//   - resume.go: continuation for both forms: the Cursor a paused run leaves, Continue,
//     CheckAnswers, each answer's branch.
//   - branches.go: Cursor.Branches, the answers down each branch, for verify.
//   - recall.go: Set.Recall, where a conversation paused, from the client's messages.
//   - seed.go: the Cursor of a seeded thread (Set.SeedCursor, SeededPause).
//
// Writing recordings:
//
//   - recorded.go: Recorded, a recording's scenario, and Recording, a recorded file as
//     a YAML tree that later runs are placed in.
//   - recordedorder.go: an event's members in the order the agent wrote them.
package scenarios

// The schema's step and fault kinds and the TypeScript client's types are written from
// the tables of step kinds (steps.go) and fault kinds (fault.go).
//go:generate go run ../internal/cmd/genschema -root ..
