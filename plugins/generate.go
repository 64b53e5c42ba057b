package plugins

// The gRPC contract is generated with protoc (Debian protobuf-compiler) and
// the Go plugins protoc-gen-go and protoc-gen-go-grpc; the generated files
// are committed so a build needs none of them.
//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative internal/pb/check.proto
