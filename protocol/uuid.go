package protocol

import (
	"encoding/binary"
	"encoding/hex"
)

// NewUUID returns a random (version 4) UUID made of two random numbers, in the form
// clients such as @ag-ui/client's HttpAgent and CopilotKit give thread, run and message
// ids, and some agents (LangGraph Platform) require.
func NewUUID(hi, lo uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // the RFC 9562 variant
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
