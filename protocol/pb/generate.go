// Package pb is the Go code generated from the AG-UI protocol's protobuf definitions
// (events.proto, types.proto, patch.proto beside it). protocol/proto.go turns events to
// and from its Event message; nothing else uses it.
//
// To regenerate it, run go generate in this directory. It needs protoc (Debian's
// protobuf-compiler package) and builds protoc-gen-go from the google.golang.org/protobuf
// version go.mod names, so it works offline.
package pb

//go:generate sh -c "bin=$(mktemp -d) && go build -o $bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go && protoc --plugin=protoc-gen-go=$bin/protoc-gen-go -I . --go_out=. --go_opt=paths=source_relative events.proto types.proto patch.proto; rc=$?; rm -rf $bin; exit $rc"
