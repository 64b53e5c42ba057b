package server

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"time"
)

// FuzzUploadMessage drives the /upload message parser: it must never
// panic, and must either refuse with a documented code or return an input
// whose fields hold what the message said.
func FuzzUploadMessage(f *testing.F) {
	for _, seed := range []string{
		`{"rpcQueue":"idv-gateway-v2","menu":"service-ai","method":"init","no_adapter":false,"client_id":"c","work_flow_id":"w","config":"kenya_national_id"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"service-ai","method":"init","no_adapter":true,"client_id":"c"}`,
		`{"rpcQueue":"idv-gateway-v1"}`,
		`{"menu":"service-ai"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"service-ai","method":"init","no_adapter":"false"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"service-ai","method":"init","no_adapter":false,"client_id":"c","work_flow_id":"w","config":"x","request_id":"r","metadata":{"a":1},"extra":[1,2]}`,
		`[]`, `null`, `{"rpcQueue":null}`, `{"rpcQueue":"idv-gateway-v2"}{}`, "\xff\xfe", `{"a":"\u0000"}`,
	} {
		for _, n := range []int{0, 1, 2, 3} {
			f.Add([]byte(seed), n)
		}
	}
	documented := ErrorCodes()
	f.Fuzz(func(t *testing.T, msg []byte, nfiles int) {
		if nfiles < 0 || nfiles > 10 {
			return
		}
		in, aerr := parseUploadMessage(msg, nfiles)
		if aerr != nil {
			if _, ok := documented[aerr.Code]; !ok {
				t.Fatalf("undocumented code %d", aerr.Code)
			}
			if in != nil {
				t.Fatal("an input returned with an error")
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("accepted a message that is not a JSON object: %v", err)
		}
		if m["rpcQueue"] != RPCQueue || m["menu"] != MenuUpload || m["method"] != MethodUpload {
			t.Fatalf("accepted a message with the wrong envelope: %v", m)
		}
		if in.clientID == "" || in.clientID != m["client_id"] {
			t.Fatalf("client_id %q, message says %v", in.clientID, m["client_id"])
		}
		if !in.noAdapter {
			if nfiles < 2 || in.workflowID != m["work_flow_id"] || in.config != m["config"] {
				t.Fatalf("bad verification input %+v from %s", in, msg)
			}
		}
		if len(in.message) != len(m) {
			t.Fatalf("message keys lost: %d of %d", len(in.message), len(m))
		}
	})
}

// FuzzPostdataEnvelope drives the /postdata envelope parser and the
// submitVerification payload decoder.
func FuzzPostdataEnvelope(f *testing.F) {
	payload := func(s string) string {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	for _, seed := range []string{
		`{"rpcQueue":"idv-gateway-v2","menu":"auth_config","method":"generateAccessToken","client_id":"a","client_secret":"b"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"auth_config","method":"refreshAccessToken","refresh_token":"x.y.z","organisation_id":1}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"auth_config","method":"refreshAccessToken","refresh_token":"x.y.z","organisation_id":"12"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"flow","method":"getWorkflowById","work_flow_id":"w"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"verification","method":"submitVerification","payload":"` + payload(`{"client_id":"c","work_flow_id":"w","id_front_image_url":"data:image/jpeg;base64,AAAA","id_back_image_url":"data:image/jpeg;base64,/9j/"}`) + `"}`,
		`{"rpcQueue":"idv-gateway-v2","menu":"verification","method":"submitVerification","payload":"` + payload(`[1,2,3]`) + `"}`,
		`{"rpcQueue":"x"}`, `{}`, `[]`, `"str"`, `{"rpcQueue":"idv-gateway-v2","menu":1,"method":true}`,
		`{"organisation_id":1e400}`, `{"organisation_id":-1}`, `{"organisation_id":1.5}`,
	} {
		f.Add([]byte(seed))
	}
	documented := ErrorCodes()
	s := &Server{cfg: Config{Limits: DefaultLimits}, decoding: make(chan struct{}, 1)}
	f.Fuzz(func(t *testing.T, body []byte) {
		env, aerr := parseEnvelope(body)
		if aerr != nil {
			if _, ok := documented[aerr.Code]; !ok {
				t.Fatalf("undocumented code %d", aerr.Code)
			}
			return
		}
		if env.RPCQueue != RPCQueue || env.Menu == "" || env.Method == "" {
			t.Fatalf("accepted envelope %+v", env)
		}
		if org, ok := env.int("organisation_id"); ok && org <= 0 {
			t.Fatalf("organisation_id %d accepted", org)
		}
		if p := env.str("payload"); p != "" {
			inner, aerr := inflatePayload(p, 1<<20)
			if aerr != nil {
				if _, ok := documented[aerr.Code]; !ok {
					t.Fatalf("undocumented code %d", aerr.Code)
				}
				return
			}
			fields, aerr := parseObject(inner)
			if aerr != nil {
				return
			}
			in, aerr := s.directInput(context.Background(), &Principal{ClientID: "c"}, fields)
			if aerr == nil && (len(in.files) < 2 || in.clientID == "" || in.workflowID == "") {
				t.Fatalf("direct input without its required parts: %+v", in)
			}
			if aerr != nil && HTTPStatus(aerr.Code) == http.StatusInternalServerError {
				t.Fatalf("internal error on outside input: %v", aerr)
			}
		}
	})
}

// FuzzTokenParse feeds arbitrary bearer tokens to the parser: it must never
// panic, and anything it accepts must carry exactly the claims of a token
// the server signed.
func FuzzTokenParse(f *testing.F) {
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	tk := tokens{key: bytes.Repeat([]byte{7}, 32), now: now}
	// Fixed ids: fuzz workers rebuild the seeds in their own processes.
	exp := jwt.NewNumericDate(now().Add(time.Hour))
	access, _ := tk.sign(Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "client-1", ExpiresAt: exp, ID: "a"}, Type: tokenAccess, Org: 1})
	scoped, _ := tk.sign(Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "client-1", ExpiresAt: exp, ID: "b"}, Type: tokenAccess, Org: 1, Workflow: "wf-1"})
	refresh, _ := tk.sign(Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "client-1", ID: "c"}, Type: tokenRefresh, Org: 1, Workflow: "wf-1"})
	signed := map[string]bool{}
	for _, s := range []string{access, scoped, refresh} {
		f.Add(s)
		signed[s] = true
	}
	f.Add("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJjbGllbnQtMSJ9.")
	f.Add("a.b.c")
	f.Add("")
	want := map[string]Claims{}
	for s := range signed {
		for _, typ := range []string{tokenAccess, tokenRefresh} {
			if c, err := tk.parse(s, typ); err == nil {
				want[typ+s[:strings.LastIndexByte(s, '.')]] = *c
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, typ := range []string{tokenAccess, tokenRefresh} {
			c, err := tk.parse(raw, typ)
			if err != nil {
				continue
			}
			i := strings.LastIndexByte(raw, '.')
			w, ok := want[typ+raw[:i]]
			if !ok || w.Subject != c.Subject || w.Org != c.Org || w.Workflow != c.Workflow || w.Type != c.Type {
				t.Fatalf("accepted a token the server did not sign: %q", raw)
			}
		}
	})
}

// FuzzDataURL drives the data URL decoder of /v1/verify and the SDK.
func FuzzDataURL(f *testing.F) {
	for _, s := range []string{"data:image/jpeg;base64,/9j/4AAQ", "data:image/png;base64,iVBORw0KGgo=", "data:text/plain,hi",
		"data:image/jpeg;base64,", "data:image/jpeg;base64,@@", "https://x/y.jpg", "data:image/jpeg;base64,AAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data, aerr := decodeDataURL("f", s, 1<<16)
		if aerr != nil {
			if _, ok := ErrorCodes()[aerr.Code]; !ok {
				t.Fatalf("undocumented code %d", aerr.Code)
			}
			return
		}
		if len(data) > 1<<16+3 {
			t.Fatalf("decoded %d bytes past the limit", len(data))
		}
	})
}
