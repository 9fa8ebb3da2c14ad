package scenarios

// faultHint describes the fault step. The step's type, its parse and its emit
// (faultStep) are in fault.go, beside the tables of fault kinds and of their
// parameters, which they read.
const faultHint = "Breaks the stream on purpose at this point, to test how a client copes: the run ends here and the thread's conversation does not continue. " +
	"It must be the last step of its list, and a scenario with a fault step needs broken: <reason>. " +
	"Write the kind, or an object with kind and its options. " +
	"Faults of a whole request are set per request with the X-Agui-Mock-Fault header or the admin API instead. " +
	"Taken literally: no templates."
