// Package docs embeds the documents the server serves: the OpenAPI
// description of the REST interface, kept true by a test in package server
// that compares it with the registered routes.
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
