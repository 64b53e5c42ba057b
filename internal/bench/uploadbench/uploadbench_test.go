package uploadbench

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/bench"
)

func TestSummarise(t *testing.T) {
	ms := time.Millisecond
	s := Summarise([]Sample{
		{Latency: 30 * ms, Status: 200, Units: 13},
		{Latency: 10 * ms, Status: 200, Units: 13},
		{Latency: 5 * ms, Status: 402, Code: 51},
		{Latency: 6 * ms, Status: 402, Code: 51},
		{Latency: 2 * ms, Err: "connection refused"},
		{Latency: 20 * ms, Status: 200, Units: 2},
	})
	want := Summary{OK: []time.Duration{10 * ms, 20 * ms, 30 * ms}, Units: 28,
		Failures: map[string]int{"HTTP 402 code 51": 2, "transport: connection refused": 1}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
}

func TestLatencyPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 20; i++ {
		d = append(d, time.Duration(i))
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 10}, {95, 19}, {99, 20}, {100, 20}, {0, 1}} {
		if got := LatencyPercentile(d, tc.p); got != tc.want {
			t.Errorf("p%v of 1..20 = %v, want %v (nearest rank)", tc.p, got, tc.want)
		}
	}
	if got := LatencyPercentile(nil, 50); got != 0 {
		t.Errorf("no values: %v", got)
	}
}

func TestToken(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oauth/token" || r.FormValue("grant_type") != "client_credentials" || r.FormValue("client_secret") != "s" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		_, _ = w.Write([]byte(`{"access_token":"tok-` + r.FormValue("client_id") + `"}`))
	}))
	defer ts.Close()
	tok, err := Token(t.Context(), ts.Client(), ts.URL, "c1", "s")
	if err != nil || tok != "tok-c1" {
		t.Errorf("Token = %q, %v", tok, err)
	}
	if _, err := Token(t.Context(), ts.Client(), ts.URL, "c1", "wrong"); err == nil || err.Error() != "token request: HTTP 401 invalid_client" {
		t.Errorf("wrong secret: %v", err)
	}
	if _, err := Run(t.Context(), Options{BaseURL: "http://a b", Concurrency: 1, Duration: time.Second}); !bench.IsInput(err) {
		t.Errorf("unusable URL: %v, want an input error", err)
	}
}
