package protocol

import "strconv"

// KeepAlive is the SSE comment written during long pauses. Every client version skips
// comment blocks, and proxies see traffic, so idle connections are not cut.
const KeepAlive = ": keep-alive\n\n"

// AppendFrame appends one SSE frame carrying ev: an optional `id: <TYPE>_<timestamp>`
// line, as the production API this server stands in for writes it, then one `data:` line
// with the compact JSON event, then a blank line. Framing is LF only, which is the only
// separator the 0.0.x clients split on.
func AppendFrame(dst []byte, ev Event, timestamp int64, withID bool) ([]byte, error) {
	if withID {
		dst = append(dst, "id: "...)
		dst = append(dst, ev.Type...)
		dst = append(dst, '_')
		dst = strconv.AppendInt(dst, timestamp, 10)
		dst = append(dst, '\n')
	}
	dst = append(dst, "data: "...)
	dst, err := ev.AppendJSON(dst, timestamp)
	if err != nil {
		return nil, err
	}
	return append(dst, '\n', '\n'), nil
}
