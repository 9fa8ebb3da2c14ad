package protocol

// Encoder writes events as the frames of one transport, SSE or protobuf: the one seam
// between the events of a run and the bytes of its response.
type Encoder interface {
	// ContentType is the Content-Type of a response in this transport.
	ContentType() string
	// AppendFrame appends the frame that carries ev, stamped with timestamp in
	// milliseconds. An event the transport cannot carry appends nothing.
	AppendFrame(dst []byte, ev Event, timestamp int64) ([]byte, error)
	// KeepAlive is what the transport writes during long pauses so that proxies see
	// traffic; nil when the transport has no such frame.
	KeepAlive() []byte
	// MalformedFrame is a frame that no client of the transport can decode.
	MalformedFrame() []byte
}

// SSEContentType is the Content-Type of an SSE response.
const SSEContentType = "text/event-stream; charset=utf-8"

// SSEEncoder writes SSE frames (see AppendFrame), with id: lines when WithIDs is set.
type SSEEncoder struct {
	WithIDs bool
}

// ContentType is text/event-stream.
func (SSEEncoder) ContentType() string { return SSEContentType }

// AppendFrame appends the SSE frame of ev.
func (e SSEEncoder) AppendFrame(dst []byte, ev Event, timestamp int64) ([]byte, error) {
	return AppendFrame(dst, ev, timestamp, e.WithIDs)
}

// KeepAlive is the keep-alive comment.
func (SSEEncoder) KeepAlive() []byte { return []byte(KeepAlive) }

// MalformedFrame is a data: frame whose JSON is cut short.
func (SSEEncoder) MalformedFrame() []byte {
	return []byte("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\n\n")
}
