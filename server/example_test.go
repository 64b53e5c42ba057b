package server_test

import (
	"fmt"

	"github.com/tambua/tambua/server"
)

// The HTTP status sent with some of the v_field39 codes.
func ExampleHTTPStatus() {
	for _, code := range []int{server.CodeUnknownQueue, server.CodeUnauthorized, server.CodeInsufficientUnits,
		server.CodeBusy, server.CodeUpstreamFailed} {
		fmt.Println(code, server.HTTPStatus(code))
	}
	// Output:
	// 101 400
	// 401 401
	// 402 402
	// 230 503
	// 502 502
}

// A client secret is stored only as an argon2id hash.
func ExampleHashSecret() {
	secret := server.NewClientSecret()
	hash, _ := server.HashSecret(secret)
	fmt.Println(hash[:10], server.CheckSecret(hash, secret), server.CheckSecret(hash, "guess"))
	// Output: $argon2id$ true false
}
