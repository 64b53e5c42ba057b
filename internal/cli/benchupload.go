package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tambua/tambua/internal/bench/uploadbench"
)

func init() {
	Register(&Command{Path: "bench upload", Summary: "load a running server with /upload verifications; prints latency percentiles and throughput", Run: runBenchUpload})
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
	o := uploadbench.Options{BaseURL: strings.TrimRight(*base, "/"), Concurrency: *conc, Duration: *dur, Timeout: *timeout,
		ClientID: *clientID, ClientSecret: *secret, Workflow: *workflow, Config: *config, Images: images}
	var bar *progressbar.ProgressBar
	if !*quiet {
		bar = progressbar.NewOptions64(int64(dur.Seconds()),
			progressbar.OptionSetWriter(env.Stderr), progressbar.OptionSetDescription("bench upload"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(500*time.Millisecond))
		o.Progress = func(n int) { bar.Describe(fmt.Sprintf("bench upload: %d requests", n)) }
		o.Tick = func(elapsed time.Duration) { _ = bar.Set64(int64(elapsed.Seconds())) }
	}
	rep, err := uploadbench.Run(ctx, o)
	if err != nil {
		return benchErr(err)
	}
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(env.Stderr)
	}
	return printUploadBench(env, rep)
}

func printUploadBench(env *Env, rep *uploadbench.Report) error {
	s := uploadbench.Summarise(rep.Samples)
	w := env.Stdout
	fmt.Fprintf(w, "requests     %d in %s at concurrency %d\n", len(rep.Samples), rep.Elapsed.Round(time.Millisecond), rep.Concurrency)
	fmt.Fprintf(w, "succeeded    %d (%d units)\n", len(s.OK), s.Units)
	fmt.Fprintf(w, "latency p50  %s\n", uploadbench.LatencyPercentile(s.OK, 50).Round(time.Millisecond))
	fmt.Fprintf(w, "latency p95  %s\n", uploadbench.LatencyPercentile(s.OK, 95).Round(time.Millisecond))
	fmt.Fprintf(w, "latency p99  %s\n", uploadbench.LatencyPercentile(s.OK, 99).Round(time.Millisecond))
	fmt.Fprintf(w, "throughput   %.2f verifications/s\n", float64(len(s.OK))/rep.Elapsed.Seconds())
	keys := make([]string, 0, len(s.Failures))
	for k := range s.Failures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "failed       %d x %s\n", s.Failures[k], k)
	}
	if len(s.OK) == 0 {
		return errors.New("no request succeeded")
	}
	return nil
}
