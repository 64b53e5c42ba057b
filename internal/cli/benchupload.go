package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tambua/tambua/idv"
)

func init() {
	Register(&Command{Path: "bench upload", Summary: "load a running server with /upload verifications; prints latency percentiles and throughput", Run: runBenchUpload})
}

// uploadSample is one request's outcome.
type uploadSample struct {
	d      time.Duration
	status int
	code   int    // v_field39 of an error body
	units  int    // units_consumed of a success
	err    string // transport error
}

func runBenchUpload(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "bench upload")
	base := fs.String("url", "http://127.0.0.1:8080", "base URL of the server")
	conc := fs.Int("concurrency", 4, "requests in flight")
	dur := fs.Duration("duration", 30*time.Second, "how long to send requests")
	clientID := fs.String("client-id", env.Getenv("TAMBUA_CLIENT_ID"), "client_id (env TAMBUA_CLIENT_ID)")
	secret := fs.String("client-secret", env.Getenv("TAMBUA_CLIENT_SECRET"), "client secret (env TAMBUA_CLIENT_SECRET)")
	workflow := fs.String("workflow", env.Getenv("TAMBUA_WORKFLOW_ID"), "work_flow_id (env TAMBUA_WORKFLOW_ID)")
	config := fs.String("config", "kenya_national_id", "document type (config)")
	front := fs.String("front", "", "front image file (required)")
	back := fs.String("back", "", "back image file (default: the front)")
	selfie := fs.String("selfie", "", "selfie image file (optional)")
	timeout := fs.Duration("timeout", 120*time.Second, "per-request client timeout")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *clientID == "" || *secret == "" || *workflow == "" || *front == "" {
		return Usagef("--client-id, --client-secret, --workflow and --front are required")
	}
	if *conc < 1 || *dur <= 0 {
		return Usagef("--concurrency must be at least 1 and --duration positive")
	}
	if *back == "" {
		*back = *front
	}
	images := map[string][]byte{}
	for slot, path := range map[string]string{"front": *front, "back": *back, "selfie": *selfie} {
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return Usagef("%v", err)
		}
		images[slot] = b
	}
	baseURL := strings.TrimRight(*base, "/")
	client := &http.Client{Timeout: *timeout, Transport: &http.Transport{MaxIdleConnsPerHost: *conc * 2}}
	token, err := uploadToken(ctx, client, baseURL, *clientID, *secret)
	if err != nil {
		return err
	}

	var bar *progressbar.ProgressBar
	if !*quiet {
		bar = progressbar.NewOptions64(int64(dur.Seconds()),
			progressbar.OptionSetWriter(env.Stderr), progressbar.OptionSetDescription("bench upload"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(500*time.Millisecond))
	}
	runCtx, cancel := context.WithTimeout(ctx, *dur)
	defer cancel()
	var mu sync.Mutex
	var samples []uploadSample
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < *conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				s := uploadOnce(ctx, client, baseURL, token, *clientID, *workflow, *config, images)
				mu.Lock()
				samples = append(samples, s)
				n := len(samples)
				mu.Unlock()
				if bar != nil {
					bar.Describe(fmt.Sprintf("bench upload: %d requests", n))
				}
			}
		}()
	}
	if bar != nil {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
					_ = bar.Set64(int64(time.Since(start).Seconds()))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(env.Stderr)
	}
	return printUploadBench(env, samples, elapsed, *conc)
}

func uploadToken(ctx context.Context, c *http.Client, base, id, secret string) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", Usagef("--url: %v", err)
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

func uploadOnce(ctx context.Context, c *http.Client, base, token, clientID, workflow, config string, images map[string][]byte) uploadSample {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	msg, _ := json.Marshal(map[string]any{
		"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": clientID, "work_flow_id": workflow, "config": config, "request_id": idv.NewRequestID(),
	})
	for _, slot := range []string{"front", "back", "selfie"} {
		if b, ok := images[slot]; ok {
			w, _ := mw.CreateFormFile(slot, slot+".jpg")
			_, _ = w.Write(b)
		}
	}
	_ = mw.WriteField("message", string(msg))
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/upload", &body)
	if err != nil {
		return uploadSample{err: err.Error()}
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return uploadSample{d: time.Since(t0), err: err.Error()}
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	resp.Body.Close()
	s := uploadSample{d: time.Since(t0), status: resp.StatusCode}
	var out struct {
		Code  int `json:"v_field39"`
		Units int `json:"units_consumed"`
	}
	_ = json.Unmarshal(raw, &out)
	s.code, s.units = out.Code, out.Units
	return s
}

// latencyPercentile returns the p-th latencyPercentile (nearest rank) of sorted values.
func latencyPercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

func printUploadBench(env *Env, samples []uploadSample, elapsed time.Duration, conc int) error {
	var ok []time.Duration
	failures := map[string]int{}
	units := 0
	for _, s := range samples {
		switch {
		case s.err != "":
			failures["transport: "+s.err]++
		case s.status == http.StatusOK:
			ok = append(ok, s.d)
			units += s.units
		default:
			failures[fmt.Sprintf("HTTP %d code %d", s.status, s.code)]++
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i] < ok[j] })
	w := env.Stdout
	fmt.Fprintf(w, "requests     %d in %s at concurrency %d\n", len(samples), elapsed.Round(time.Millisecond), conc)
	fmt.Fprintf(w, "succeeded    %d (%d units)\n", len(ok), units)
	fmt.Fprintf(w, "latency p50  %s\n", latencyPercentile(ok, 50).Round(time.Millisecond))
	fmt.Fprintf(w, "latency p95  %s\n", latencyPercentile(ok, 95).Round(time.Millisecond))
	fmt.Fprintf(w, "latency p99  %s\n", latencyPercentile(ok, 99).Round(time.Millisecond))
	fmt.Fprintf(w, "throughput   %.2f verifications/s\n", float64(len(ok))/elapsed.Seconds())
	keys := make([]string, 0, len(failures))
	for k := range failures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "failed       %d x %s\n", failures[k], k)
	}
	if len(ok) == 0 {
		return errors.New("no request succeeded")
	}
	return nil
}
