// Package uploadbench loads a running tambua server with /upload
// verifications for tambua bench upload: a token from /oauth/token, then
// requests from several goroutines for a while, each request's latency,
// status, error code and units kept for the summary.
package uploadbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
)

// Options of Run.
type Options struct {
	// BaseURL of the server, without a trailing slash.
	BaseURL     string
	Concurrency int
	Duration    time.Duration
	// Timeout of each request.
	Timeout                                  time.Duration
	ClientID, ClientSecret, Workflow, Config string
	// Images by slot (front, back, selfie), sent as JPEG files.
	Images map[string][]byte
	// Progress, if set, is called after each request with the number
	// done so far, and Tick every second with the time since the start;
	// both from other goroutines.
	Progress func(requests int)
	Tick     func(elapsed time.Duration)
}

// Sample is one request's outcome.
type Sample struct {
	Latency time.Duration
	Status  int
	Code    int    // v_field39 of an error body
	Units   int    // units_consumed of a success
	Err     string // transport error
}

// Report holds every request of a run.
type Report struct {
	Samples     []Sample
	Elapsed     time.Duration
	Concurrency int
}

// Run gets a token, then sends requests from o.Concurrency goroutines
// until o.Duration has passed and the requests in flight have returned.
// A base URL no request can be made of is a *bench.InputError.
func Run(ctx context.Context, o Options) (*Report, error) {
	client := &http.Client{Timeout: o.Timeout, Transport: &http.Transport{MaxIdleConnsPerHost: o.Concurrency * 2}}
	token, err := Token(ctx, client, o.BaseURL, o.ClientID, o.ClientSecret)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var mu sync.Mutex
	rep := &Report{Concurrency: o.Concurrency}
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < o.Concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				s := uploadOnce(ctx, client, o, token)
				mu.Lock()
				rep.Samples = append(rep.Samples, s)
				n := len(rep.Samples)
				mu.Unlock()
				if o.Progress != nil {
					o.Progress(n)
				}
			}
		}()
	}
	if o.Tick != nil {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
					o.Tick(time.Since(start))
				}
			}
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// Token gets an access token by the client credentials grant.
func Token(ctx context.Context, c *http.Client, base, id, secret string) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", bench.Inputf("--url: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tr); err != nil || tr.AccessToken == "" {
		return "", fmt.Errorf("token request: HTTP %d %s", resp.StatusCode, tr.Error)
	}
	return tr.AccessToken, nil
}

func uploadOnce(ctx context.Context, c *http.Client, o Options, token string) Sample {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	msg, _ := json.Marshal(map[string]any{
		"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": o.ClientID, "work_flow_id": o.Workflow, "config": o.Config, "request_id": idv.NewRequestID(),
	})
	for _, slot := range []string{"front", "back", "selfie"} {
		if b, ok := o.Images[slot]; ok {
			w, _ := mw.CreateFormFile(slot, slot+".jpg")
			_, _ = w.Write(b)
		}
	}
	_ = mw.WriteField("message", string(msg))
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.BaseURL+"/upload", &body)
	if err != nil {
		return Sample{Err: err.Error()}
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return Sample{Latency: time.Since(t0), Err: err.Error()}
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	resp.Body.Close()
	s := Sample{Latency: time.Since(t0), Status: resp.StatusCode}
	var out struct {
		Code  int `json:"v_field39"`
		Units int `json:"units_consumed"`
	}
	_ = json.Unmarshal(raw, &out)
	s.Code, s.Units = out.Code, out.Units
	return s
}

// Summary sorts a run's requests into successes and failures.
type Summary struct {
	// OK are the latencies of the successful requests, sorted.
	OK    []time.Duration
	Units int
	// Failures counts the failed requests by "transport: ERROR" or
	// "HTTP STATUS code V_FIELD39".
	Failures map[string]int
}

// Summarise sorts the samples into successes and failures.
func Summarise(samples []Sample) Summary {
	s := Summary{Failures: map[string]int{}}
	for _, x := range samples {
		switch {
		case x.Err != "":
			s.Failures["transport: "+x.Err]++
		case x.Status == http.StatusOK:
			s.OK = append(s.OK, x.Latency)
			s.Units += x.Units
		default:
			s.Failures[fmt.Sprintf("HTTP %d code %d", x.Status, x.Code)]++
		}
	}
	sort.Slice(s.OK, func(i, j int) bool { return s.OK[i] < s.OK[j] })
	return s
}

// LatencyPercentile returns the p-th percentile (nearest rank) of sorted
// values.
func LatencyPercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}
