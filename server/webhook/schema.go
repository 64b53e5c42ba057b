package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A verification check webhook may declare the JSON Schema of the request
// it expects and of the response it gives. The service holds both sides to
// them: a request that does not match is not sent, and a response that
// does not match is not judged (the check errors, so the verification goes
// to review), because a schema the integrator wrote is a contract, and a
// reply outside it is more likely a broken endpoint than a verdict.

// noExternalRefs refuses every $ref outside the schema itself, so that a
// schema cannot make the server read its disk or reach the network.
type noExternalRefs struct{}

func (noExternalRefs) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %s: only references inside the schema are allowed", url)
}

// compileSchema compiles one of a webhook's schemas (draft 2020-12 unless
// the schema names another with $schema).
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %v", name, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("%s must be a JSON object", name)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noExternalRefs{})
	c.DefaultDraft(jsonschema.Draft2020)
	loc := "urn:tambua:webhook:" + name
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %v", name, err)
	}
	return sch, nil
}

// checkAgainst validates body against the webhook's schema called name;
// an empty schema accepts anything.
func checkAgainst(name string, schema json.RawMessage, body []byte) error {
	if len(schema) == 0 {
		return nil
	}
	sch, err := compileSchema(name, schema)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("does not match %s: %v", name, err)
	}
	return nil
}
