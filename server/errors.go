package server

import (
	"errors"
	"net/http"

	"github.com/agui-mock/agui-mock/scenarios"
)

// resumeError answers the errors of a run that cannot continue its thread's paused
// conversation, from scenarios.Continue or, for the explicit form, from planning the
// continuation of scenario. It is the one table from those errors to statuses; other
// errors are returned as they are.
func resumeError(err error, scenario string) error {
	var (
		pending  *scenarios.InterruptsPendingError
		none     *scenarios.NoPendingInterruptsError
		answer   *scenarios.AnswerError
		noBranch *scenarios.NoBranchError
	)
	switch {
	case errors.As(err, &pending):
		return &httpError{status: http.StatusConflict, body: errorBody{Error: "interrupts_pending", Message: pending.Error(),
			Details: map[string]any{"interrupts": wireInterrupts(pending.Pending)}}}
	case errors.As(err, &none):
		return apiError(http.StatusBadRequest, "no_pending_interrupts", none.Error())
	case errors.As(err, &answer):
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: answer.Code, Message: answer.Message,
			Details: map[string]any{"interruptId": answer.InterruptID, "interrupts": wireInterrupts(answer.Pending)}}}
	case errors.As(err, &noBranch):
		return apiError(http.StatusBadRequest, "no_recorded_branch", "scenario "+scenario+": "+noBranch.Error()+
			"; answer as recorded, or add this answer's branch: play the session again with it through `agui-mock record` into the same --record-dir"+
			" (serve --record-missing replays the recorded first run, so it cannot record a new branch)")
	}
	return err
}

// wireInterrupts are pending interrupts as they were sent.
func wireInterrupts(pending []scenarios.PendingInterrupt) []map[string]any {
	out := make([]map[string]any, len(pending))
	for i, pi := range pending {
		out[i] = pi.Wire
	}
	return out
}
