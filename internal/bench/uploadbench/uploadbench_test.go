package uploadbench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
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

// TestRun loads a real HTTP server that answers every other upload with
// 402, and checks what reached it and what the samples say.
func TestRun(t *testing.T) {
	var mu sync.Mutex
	var uploads int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/oauth/token":
			_, _ = w.Write([]byte(`{"access_token":"tok"}`))
		case "/upload":
			var msg struct {
				ClientID string `json:"client_id"`
				Workflow string `json:"work_flow_id"`
			}
			front, _, err := r.FormFile("front")
			if r.Header.Get("Authorization") != "Bearer tok" || err != nil ||
				json.Unmarshal([]byte(r.FormValue("message")), &msg) != nil || msg.ClientID != "c1" || msg.Workflow != "wf" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			front.Close()
			mu.Lock()
			uploads++
			n := uploads
			mu.Unlock()
			if n%2 == 0 {
				w.WriteHeader(http.StatusPaymentRequired)
				_, _ = w.Write([]byte(`{"v_field39":51}`))
				return
			}
			_, _ = w.Write([]byte(`{"units_consumed":3}`))
		}
	}))
	defer ts.Close()
	var ticks atomic.Int64
	rep, err := Run(t.Context(), Options{BaseURL: ts.URL, Concurrency: 2, Duration: 300 * time.Millisecond, Timeout: 5 * time.Second,
		ClientID: "c1", ClientSecret: "s", Workflow: "wf", Config: "generic_passport",
		Images: map[string][]byte{"front": []byte("jpeg")}, Progress: func(int) { ticks.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	s := Summarise(rep.Samples)
	if len(rep.Samples) != uploads || len(rep.Samples) < 2 || int(ticks.Load()) != len(rep.Samples) {
		t.Fatalf("%d samples, %d uploads served, %d progress calls", len(rep.Samples), uploads, ticks.Load())
	}
	if len(s.OK) != (uploads+1)/2 || s.Units != 3*len(s.OK) || s.Failures["HTTP 402 code 51"] != uploads/2 {
		t.Errorf("summary %+v of %d uploads; want every other one refused with 402", s, uploads)
	}
	if rep.Concurrency != 2 || rep.Elapsed < 300*time.Millisecond {
		t.Errorf("concurrency %d, elapsed %s", rep.Concurrency, rep.Elapsed)
	}
}
