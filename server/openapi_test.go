package server_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tambua/tambua/docs"
	"github.com/tambua/tambua/server"
)

type openAPIDoc struct {
	OpenAPI    string                    `yaml:"openapi"`
	Paths      map[string]map[string]any `yaml:"paths"`
	ErrorCodes []struct {
		Code int `yaml:"code"`
		HTTP int `yaml:"http"`
	} `yaml:"x-error-codes"`
}

// TestOpenAPIMatchesRoutes keeps docs/openapi.yaml true: the same paths and
// methods as the server registers, and the same error codes and statuses.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc openAPIDoc
	require.NoError(t, yaml.Unmarshal(docs.OpenAPI, &doc))
	assert.True(t, strings.HasPrefix(doc.OpenAPI, "3.1"), doc.OpenAPI)

	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			switch method {
			case "get", "post", "put", "patch", "delete":
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	e := newEnv(t)
	var registered []string
	for _, r := range e.srv.Routes() {
		registered = append(registered, r.Method+" "+strings.ReplaceAll(r.Path, "...}", "}"))
	}
	sort.Strings(documented)
	sort.Strings(registered)
	assert.Equal(t, registered, documented)

	codes := map[int]int{}
	for _, c := range doc.ErrorCodes {
		codes[c.Code] = c.HTTP
	}
	assert.Equal(t, server.ErrorCodes(), codes)

	r := e.get(e.ts.URL + "/openapi.yaml")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, docs.OpenAPI, r.body)
}
