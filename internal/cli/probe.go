package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

func init() {
	Register(&Command{Path: "probe", Summary: "GET a health URL (/healthz, /readyz); exit 0 on 200: container health checks without curl", Run: runProbe})
}

// runProbe is the container image's health check: the image carries no
// curl, and an orchestrator's own HTTP probe is not available everywhere
// (docker compose runs a command in the container).
func runProbe(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "probe")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	pos, err := parseArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("give the URL, e.g. http://127.0.0.1:8080/readyz")
	}
	u, err := url.Parse(pos[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Usagef("want an http:// or https:// URL, got %q", pos[0])
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Usagef("%v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(env.Stdout, "%d %s\n", resp.StatusCode, body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", u.Redacted(), resp.StatusCode)
	}
	return nil
}
