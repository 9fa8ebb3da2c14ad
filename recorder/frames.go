package recorder

import (
	"encoding/binary"
	"io"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
)

// upstreamFrame is one frame of an upstream agent's stream: the event it carries, or
// why it carries none, the bytes that relay it to the client as it came, and the size
// of its event, which counts towards the recording's limit.
type upstreamFrame struct {
	event protocol.Event
	err   error
	wire  []byte
	size  int
}

// upstreamFrames reads the frames of an upstream's stream in its transport.
type upstreamFrames interface {
	// next returns the next frame; io.EOF at the end of the stream.
	next() (upstreamFrame, error)
	// encoder writes frames in the same transport, for the errors the recorder adds.
	encoder() protocol.Encoder
}

// newUpstreamFrames reads a stream whose Content-Type is contentType: AG-UI protobuf
// frames, or SSE.
func newUpstreamFrames(contentType string, r io.Reader, maxFrame int) upstreamFrames {
	if protocol.IsProtoContentType(contentType) {
		return protoFrames{protocol.NewProtoFrameReader(r, maxFrame)}
	}
	return sseFrames{protocol.NewFrameReader(r, maxFrame)}
}

type sseFrames struct{ fr *protocol.FrameReader }

func (s sseFrames) encoder() protocol.Encoder { return protocol.SSEEncoder{} }

func (s sseFrames) next() (upstreamFrame, error) {
	f, err := s.fr.Next()
	if err != nil {
		return upstreamFrame{}, err
	}
	ev, err := protocol.DecodeEvent([]byte(f.Data))
	var wire []byte
	if f.ID != "" {
		wire = append(append(append(wire, "id: "...), f.ID...), '\n')
	}
	return upstreamFrame{event: ev, err: err, wire: appendData(wire, f.Data), size: len(f.Data)}, nil
}

// appendData appends an SSE frame's data field, a data: line for each of its lines, and
// the blank line that ends the frame, so that data of several lines reaches the client
// as it was sent.
func appendData(dst []byte, data string) []byte {
	for line := range strings.SplitSeq(data, "\n") {
		dst = append(dst, "data: "...)
		dst = append(dst, line...)
		dst = append(dst, '\n')
	}
	return append(dst, '\n')
}

type protoFrames struct{ fr *protocol.ProtoFrameReader }

func (p protoFrames) encoder() protocol.Encoder { return protocol.ProtoEncoder{} }

func (p protoFrames) next() (upstreamFrame, error) {
	b, err := p.fr.Next()
	if err != nil {
		return upstreamFrame{}, err
	}
	ev, err := protocol.DecodeProto(b)
	wire := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(b)), uint32(len(b)))
	return upstreamFrame{event: ev, err: err, wire: append(wire, b...), size: len(b)}, nil
}
