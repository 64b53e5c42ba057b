package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tambua/tambua/server"
)

// The deployment files (Dockerfile, deploy/docker-compose.yml,
// deploy/nginx.conf, deploy/k8s) are not run by the tests: no container
// runtime here (docs/deploy.md). These tests hold them to the code they
// configure, so a renamed variable, a shorter grace period or a changed
// model checksum breaks the build rather than a deployment.

const repoRoot = "../.."

// serveEnvKeys are the environment variables tambua serve reads: those
// its flags take defaults from (recorded while it parses -h), and those
// read after parsing or by its libraries.
func serveEnvKeys(t *testing.T) map[string]bool {
	t.Helper()
	var mu sync.Mutex
	keys := map[string]bool{
		"TAMBUA_SIGNING_KEY":    true, // internal/cli/serve.go: environment only, read after the flags
		"TAMBUA_SMTP_PASSWORD":  true, // internal/cli/webhooks.go: the same
		"TAMBUA_MODELS":         true, // the face check's models (checks/standard)
		"TAMBUA_LISTS":          true, // sanctions lists
		"PGPASSWORD":            true, // pgx
		"AWS_ACCESS_KEY_ID":     true, // server/s3
		"AWS_SECRET_ACCESS_KEY": true,
	}
	var out bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(k string) string {
		mu.Lock()
		keys[k] = true
		mu.Unlock()
		return ""
	}}
	require.Equal(t, ExitOK, Run(context.Background(), env, []string{"serve", "-h"}), out.String())
	require.True(t, keys["TAMBUA_DB"] && keys["TAMBUA_SHUTDOWN_TIMEOUT"], "serve -h read its flags' variables")
	return keys
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m), path)
	return m
}

// dig follows keys (strings) and indexes (ints) into decoded YAML.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "at %q: %T is not a map", k, v)
			v = m[k]
		case int:
			l, ok := v.([]any)
			require.True(t, ok && k < len(l), "at [%d]: %T", k, v)
			v = l[k]
		}
	}
	return v
}

func duration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	require.NoError(t, err, s)
	return d
}

func TestComposeFile(t *testing.T) {
	known := serveEnvKeys(t)
	c := readYAML(t, filepath.Join(repoRoot, "deploy", "docker-compose.yml"))
	services := dig(t, c, "services").(map[string]any)
	var replicas []string
	for name, s := range services {
		if img, _ := dig(t, s, "image").(string); img == "tambua:latest" {
			replicas = append(replicas, name)
		}
	}
	assert.Len(t, replicas, 2, "two replicas")
	for _, name := range []string{"postgres", "s3", "balancer"} {
		assert.Contains(t, services, name)
	}

	x := dig(t, c, "x-tambua")
	envs := dig(t, x, "environment").(map[string]any)
	for k := range envs {
		assert.True(t, known[k], "%s is not read by tambua serve", k)
	}
	for _, k := range []string{"TAMBUA_DB", "TAMBUA_FILES", "TAMBUA_SIGNING_KEY", "TAMBUA_WEBHOOK_CLIENT_CERT", "TAMBUA_WEBHOOK_CLIENT_KEY"} {
		assert.Contains(t, envs, k, "replicas on --db need it")
	}
	assert.True(t, strings.HasPrefix(envs["TAMBUA_DB"].(string), "postgres://"))
	assert.NotContains(t, envs["TAMBUA_DB"], ":${", "the password comes from PGPASSWORD, not the URL")
	assert.True(t, strings.HasPrefix(envs["TAMBUA_FILES"].(string), "s3://"))

	// The container's grace period covers the drain and the running
	// verifications.
	grace := duration(t, dig(t, x, "stop_grace_period").(string))
	need := duration(t, envs["TAMBUA_SHUTDOWN_DELAY"].(string)) + duration(t, envs["TAMBUA_SHUTDOWN_TIMEOUT"].(string))
	assert.Greater(t, grace, need, "stop_grace_period")

	// Only the balancer is trusted for X-Forwarded-For.
	ip := dig(t, services["balancer"], "networks", "tambua", "ipv4_address")
	assert.Equal(t, ip, envs["TAMBUA_TRUSTED_PROXIES"])
	assert.Equal(t, []any{"8080:8080"}, dig(t, services["balancer"], "ports"))

	// versitygw: the two folders it serves are volumes of their own.
	vols := dig(t, services["s3"], "volumes").([]any)
	assert.Len(t, vols, 2)
}

func TestNginxConf(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "nginx.conf"))
	require.NoError(t, err)
	conf := string(b)
	m := regexp.MustCompile(`client_max_body_size\s+(\d+)m;`).FindStringSubmatch(conf)
	require.NotNil(t, m)
	mb, _ := strconv.Atoi(m[1])
	// The largest body the server takes: /v1/verify's base64 allowance.
	largest := server.DefaultLimits.RequestBytes/3*4 + 64<<10
	assert.GreaterOrEqual(t, int64(mb)<<20, largest, "the balancer must not refuse what the server accepts")
	m = regexp.MustCompile(`proxy_read_timeout\s+(\d+)s;`).FindStringSubmatch(conf)
	require.NotNil(t, m)
	secs, _ := strconv.Atoi(m[1])
	// The serve defaults: 60 s queue, 90 s run.
	assert.Greater(t, time.Duration(secs)*time.Second, 150*time.Second, "a verification waits and runs within the proxy's timeout")
	assert.NotRegexp(t, `(?m)^\s*proxy_next_upstream[^;]*non_idempotent`, conf, "a POST /upload is never sent to a second replica")
	assert.Regexp(t, `(?m)^\s*proxy_next_upstream error timeout;`, conf)
	for _, r := range []string{"tambua-1:8080", "tambua-2:8080"} {
		assert.Contains(t, conf, r)
	}
}

func TestKubernetesManifests(t *testing.T) {
	known := serveEnvKeys(t)
	dir := filepath.Join(repoRoot, "deploy", "k8s")
	kz := readYAML(t, filepath.Join(dir, "kustomization.yaml"))
	docs := map[string]map[string]any{}
	for _, r := range dig(t, kz, "resources").([]any) {
		d := readYAML(t, filepath.Join(dir, r.(string)))
		docs[d["kind"].(string)] = d
	}
	for _, kind := range []string{"ConfigMap", "Deployment", "Service", "PodDisruptionBudget"} {
		require.Contains(t, docs, kind)
	}
	cm := dig(t, docs["ConfigMap"], "data").(map[string]any)
	for k := range cm {
		assert.True(t, known[k], "ConfigMap %s is not read by tambua serve", k)
	}
	pod := dig(t, docs["Deployment"], "spec", "template", "spec")
	ctr := dig(t, pod, "containers", 0)
	for _, e := range dig(t, ctr, "env").([]any) {
		k := dig(t, e, "name").(string)
		assert.True(t, known[k], "env %s is not read by tambua serve", k)
	}
	assert.EqualValues(t, 2, dig(t, docs["Deployment"], "spec", "replicas"))
	assert.Equal(t, "/healthz", dig(t, ctr, "livenessProbe", "httpGet", "path"), "liveness is the process, not the database")
	assert.Equal(t, "/readyz", dig(t, ctr, "readinessProbe", "httpGet", "path"))
	grace := time.Duration(dig(t, pod, "terminationGracePeriodSeconds").(int)) * time.Second
	need := duration(t, cm["TAMBUA_SHUTDOWN_DELAY"].(string)) + duration(t, cm["TAMBUA_SHUTDOWN_TIMEOUT"].(string))
	assert.Greater(t, grace, need, "terminationGracePeriodSeconds")
	assert.EqualValues(t, 10001, dig(t, pod, "securityContext", "runAsUser"), "the image's user")

	// The webhook identity files are where the ConfigMap says.
	var mount string
	for _, v := range dig(t, ctr, "volumeMounts").([]any) {
		if dig(t, v, "name") == "webhook-identity" {
			mount = dig(t, v, "mountPath").(string)
		}
	}
	require.NotEmpty(t, mount)
	for _, k := range []string{"TAMBUA_WEBHOOK_CLIENT_CERT", "TAMBUA_WEBHOOK_CLIENT_KEY", "TAMBUA_WEBHOOK_CLIENT_CA"} {
		assert.Equal(t, mount, filepath.Dir(cm[k].(string)), k)
	}

	// docs/deploy.md's kubectl create secret gives every key the pod reads.
	guide, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	require.NoError(t, err)
	for _, e := range dig(t, ctr, "env").([]any) {
		ref, ok := dig(t, e, "valueFrom").(map[string]any)
		if !ok {
			continue
		}
		key := dig(t, ref, "secretKeyRef", "key").(string)
		assert.Contains(t, string(guide), "--from-literal="+key+"=", "deploy.md creates secret key %s", key)
	}
}

func TestDockerfile(t *testing.T) {
	known := serveEnvKeys(t)
	b, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	require.NoError(t, err)
	df := string(b)
	setup, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "setup.sh"))
	require.NoError(t, err)
	// The models' checksums are setup.sh's, the one place they are pinned.
	pinned := regexp.MustCompile(`\[([a-z0-9_]+\.dat)\]=([0-9a-f]{64})`).FindAllStringSubmatch(string(setup), -1)
	require.Len(t, pinned, 3)
	for _, p := range pinned {
		assert.Regexp(t, p[2]+`\s+`+regexp.QuoteMeta(p[1]), df, "the image checks %s against setup.sh's sum", p[1])
	}
	for _, m := range regexp.MustCompile(`\b(TAMBUA_[A-Z_]+)=`).FindAllStringSubmatch(df, -1) {
		assert.True(t, known[m[1]], "ENV %s is not read by tambua serve", m[1])
	}
	assert.Contains(t, df, `CMD ["tambua", "probe", "http://127.0.0.1:8080/readyz"]`)
	assert.Contains(t, df, "USER 10001:10001", "not root")
}
