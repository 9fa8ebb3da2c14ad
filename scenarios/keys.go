package scenarios

// The keys of a scenario file. The parser allows and reads them by these names, and the
// writer of recorded scenarios (recorded.go) writes them, so that what is written is
// what is read: renaming a key renames it for both.
const (
	// a scenario's
	keyID          = "id"
	keyDescription = "description" // also of an example's tool and of a context item
	keyPriority    = "priority"
	keyBroken      = "broken"
	keyBreaks      = "breaks"
	keyStopped     = "stopped"
	keyDialect     = "dialect"
	keyMatch       = "match"
	keyTiming      = "timing"
	keySteps       = "steps"
	keyEvents      = "events" // also of a continuation
	keyNext        = "next"   // also of a continuation
	keyResult      = "result"
	keyUsage       = "usage"
	keyExamples    = "examples"

	// a thread document's one key
	keyThread = "thread"

	// the parts of a request, of a match and of an example: each the key of its row of
	// criteria (requestparts.go)
	keyRoute          = "route"
	keyAgent          = "agent"
	keyMessage        = "message"
	keySystem         = "system"
	keyForwardedProps = "forwardedProps"
	keyState          = "state"
	keyTools          = "tools"
	keyHeaders        = "headers"
	keyContext        = "context"
	keyConversation   = "conversation"

	// an example's tool, and context item
	keyName       = "name"
	keyParameters = "parameters"
	keyMetadata   = "metadata"
	keyValue      = "value"

	// an explicit event's own: the rest of its keys are the event's fields
	keyType  = "type"
	keyDelay = "delay"

	// a continuation of the explicit form, and what chooses it
	keyWhen        = "when"
	keyResume      = "resume"
	keyToolResults = "toolResults"
	keyStatus      = "status"
	keyPayload     = "payload"
)

// The keys each mapping of the explicit form's continuations allows.
var (
	continuationKeys    = []string{keyWhen, keyStopped, keyEvents, keyNext}
	whenKeys            = []string{keyResume, keyToolResults}
	resumeConditionKeys = []string{keyStatus, keyPayload}
)
