package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/tambua/tambua/checks/standard" // the built-in checks
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/sdk/webdist"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/postgres"
	"github.com/tambua/tambua/server/s3"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

func init() {
	Register(&Command{Path: "serve", Summary: "serve the REST interface (SQLite and local files under --data, or PostgreSQL and S3)", Run: runServe})
}

// consoleMailer is the console's mail: the SMTP server when configured,
// else the local mailbox folder DATA/mailbox (docs/console.md).
func consoleMailer(wh *webhookRuntime, data string, log *slog.Logger) webhook.Mailer {
	if wh.smtp != nil {
		return wh.smtp
	}
	return &server.Mailbox{Dir: filepath.Join(data, "mailbox"), Log: log}
}

// demoUnits is the balance the demo organisation starts with.
const demoUnits = 1000

func envOr(env *Env, key, def string) string {
	if v := env.Getenv(key); v != "" {
		return v
	}
	return def
}

func runServe(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "serve")
	addr := fs.String("addr", envOr(env, "TAMBUA_ADDR", "127.0.0.1:8080"), "listen address (env TAMBUA_ADDR)")
	data := fs.String("data", envOr(env, "TAMBUA_DATA", "data"), "data folder: tambua.db and files/ (env TAMBUA_DATA)")
	dbURL := fs.String("db", env.Getenv("TAMBUA_DB"), "database: postgres://USER@HOST:PORT/DB?sslmode=... shared by replicas (password from PGPASSWORD or the URL); default DATA/tambua.db (SQLite) (env TAMBUA_DB)")
	keysFile := fs.String("keys-file", env.Getenv("TAMBUA_KEYS_FILE"), "file holding the token and file-URL signing key all replicas share (else env TAMBUA_SIGNING_KEY; required with --db; tambua keys generate makes one) (env TAMBUA_KEYS_FILE)")
	filesStore := fs.String("files", env.Getenv("TAMBUA_FILES"), "image store: s3://BUCKET[/PREFIX]?endpoint=URL&region=R&path_style=true (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), or a folder; default DATA/files (env TAMBUA_FILES)")
	baseURL := fs.String("base-url", env.Getenv("TAMBUA_BASE_URL"), "public {base_url} (env TAMBUA_BASE_URL; default http://ADDR)")
	filesURL := fs.String("files-url", env.Getenv("TAMBUA_FILES_URL"), "public {files_url} (env TAMBUA_FILES_URL; default BASE_URL/files)")
	filesTTL := fs.Duration("files-ttl", 24*time.Hour, "lifetime of signed file URLs")
	workers := fs.Int("workers", 0, "verifications run at once (0: one per core)")
	docdefsDir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	var pluginPaths, sets repeated
	fs.Var(&pluginPaths, "plugin", "custom check plugin program (repeatable)")
	fs.Var(&sets, "set", "check setting as KEY=VALUE (repeatable; models_dir and lists_dir come from TAMBUA_MODELS and TAMBUA_LISTS)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	hooks := addServeWebhookFlags(fs, env)
	corsOrigins := fs.String("cors-origins", env.Getenv("TAMBUA_CORS_ORIGINS"), "comma-separated browser origins allowed to call /postdata, /upload and /v1/verify (web SDK), or * (env TAMBUA_CORS_ORIGINS)")
	tlsCert := fs.String("tls-cert", env.Getenv("TAMBUA_TLS_CERT"), "PEM certificate to serve HTTPS (env TAMBUA_TLS_CERT)")
	tlsKey := fs.String("tls-key", env.Getenv("TAMBUA_TLS_KEY"), "PEM private key of --tls-cert (env TAMBUA_TLS_KEY)")
	demoDefault := true
	switch strings.ToLower(env.Getenv("TAMBUA_DEMO")) {
	case "0", "false", "off", "no":
		demoDefault = false
	}
	demoOn := fs.Bool("demo", demoDefault, "on first start (an empty database) create a demo organisation with 1000 units and print its client secret; --demo=false for production (env TAMBUA_DEMO=off)")
	metricsAddr := fs.String("metrics-addr", env.Getenv("TAMBUA_METRICS_ADDR"), "serve /metrics on this separate address only operators reach, e.g. 127.0.0.1:9090 (env TAMBUA_METRICS_ADDR)")
	metricsToken := fs.String("metrics-token", env.Getenv("TAMBUA_METRICS_TOKEN"), "serve /metrics on the API address to callers sending Authorization: Bearer TOKEN (env TAMBUA_METRICS_TOKEN)")
	queueTimeout := fs.Duration("queue-timeout", envDuration(env, "TAMBUA_QUEUE_TIMEOUT", 60*time.Second), "how long a request waits for a verification worker before the busy answer (code 230) (env TAMBUA_QUEUE_TIMEOUT)")
	runTimeout := fs.Duration("run-timeout", envDuration(env, "TAMBUA_RUN_TIMEOUT", 90*time.Second), "how long one verification's checks may run (env TAMBUA_RUN_TIMEOUT)")
	staleClaims := fs.Duration("stale-claim-age", envDuration(env, "TAMBUA_STALE_CLAIM_AGE", staleClaimAge), "with --db: a pending claim older than this belongs to a dead replica and is released; more than --queue-timeout plus --run-timeout plus a margin (env TAMBUA_STALE_CLAIM_AGE)")
	webhookLease := fs.Duration("webhook-lease", envDuration(env, "TAMBUA_WEBHOOK_LEASE", 0), "how long a replica holds a webhook delivery it is sending; a dead replica's deliveries go to others when it lapses; more than the 30 s receiver timeout plus 5 s (env TAMBUA_WEBHOOK_LEASE; default 2m)")
	shutdownTimeout := fs.Duration("shutdown-timeout", envDuration(env, "TAMBUA_SHUTDOWN_TIMEOUT", 2*time.Minute), "on SIGTERM, how long running verifications may take to finish before the process exits anyway (env TAMBUA_SHUTDOWN_TIMEOUT); an orchestrator's grace period must be longer")
	shutdownDelay := fs.Duration("shutdown-delay", envDuration(env, "TAMBUA_SHUTDOWN_DELAY", 0), "on SIGTERM, how long to keep accepting requests while /readyz already answers 503, so load balancers stop sending them first (env TAMBUA_SHUTDOWN_DELAY)")
	trustedProxies := fs.String("trusted-proxies", env.Getenv("TAMBUA_TRUSTED_PROXIES"), "comma-separated addresses or CIDR prefixes of proxies whose X-Forwarded-For names the caller (env TAMBUA_TRUSTED_PROXIES; default none: the header is ignored)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	for _, k := range []string{"TAMBUA_SHUTDOWN_TIMEOUT", "TAMBUA_SHUTDOWN_DELAY", "TAMBUA_QUEUE_TIMEOUT", "TAMBUA_RUN_TIMEOUT", "TAMBUA_STALE_CLAIM_AGE", "TAMBUA_WEBHOOK_LEASE"} {
		if v := env.Getenv(k); v != "" {
			if _, err := time.ParseDuration(v); err != nil {
				return Usagef("%s: %v", k, err)
			}
		}
	}
	if *queueTimeout <= 0 || *runTimeout <= 0 {
		return Usagef("--queue-timeout and --run-timeout must be positive")
	}
	// A claim is stale once no verification can still be running it:
	// waiting at most the queue timeout, running at most the run timeout,
	// then storing its derived images and result; the margin covers that
	// and the clocks of replicas.
	if least := *queueTimeout + *runTimeout + claimMargin; *staleClaims < least {
		return Usagef("--stale-claim-age %v: must be at least --queue-timeout plus --run-timeout plus %v (%v), or live verifications lose their claims", *staleClaims, claimMargin, least)
	}
	if *webhookLease != 0 && *webhookLease < webhook.Timeout+5*time.Second {
		return Usagef("--webhook-lease %v: must be at least the %v receiver timeout plus 5 s, or a live replica's attempt is sent again by another", *webhookLease, webhook.Timeout)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return Usagef("--log-level: %v", err)
	}
	log := slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	if (*tlsCert == "") != (*tlsKey == "") {
		return Usagef("--tls-cert and --tls-key go together")
	}
	if *baseURL == "" {
		*baseURL = defaultBaseURL(*addr, *tlsCert != "")
	}
	proxies, err := parsePrefixes(*trustedProxies)
	if err != nil {
		return Usagef("--trusted-proxies: %v", err)
	}

	loc := dataLocation{dir: data, db: dbURL, keysFile: keysFile, getenv: env.Getenv}
	st, err := openBackend(ctx, *data, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := loadKeys(ctx, loc, st)
	if err != nil {
		return err
	}
	admin := server.NewAdmin(st, keys)
	fstore, err := openFiles(ctx, *data, *filesStore)
	if err != nil {
		return err
	}
	defs, err := definitions(*docdefsDir)
	if err != nil {
		return err
	}
	settings, err := checkSettingsWith(env, sets)
	if err != nil {
		return err
	}
	wh, err := hooks.setup(*data, *dbURL != "", st, log)
	if err != nil {
		return err
	}
	// The server's custom_webhook check resolves webhook_id to a stored
	// webhook and sends through the guarded sender.
	plugged, err := loadPlugins(ctx, env, pluginPaths)
	if err != nil {
		return err
	}
	opts := append([]idv.Option{idv.WithDefinitions(defs), idv.WithSettings(settings), idv.WithChecks(wh.check)}, plugged...)
	engine := idv.New(opts...)
	defer engine.Close()

	// Claims left pending by a previous run that stopped mid-verification
	// were never billed: release them so their units and request ids are
	// free again. A SQLite file has one server, so every pending claim is
	// a dead one; a shared database also holds the live claims of other
	// replicas, so only claims older than any verification can last are
	// released, at start and then every minute (a replica that dies is
	// not restarted by anyone else).
	shared := *dbURL != ""
	releaseBefore := func() time.Time {
		if shared {
			return time.Now().Add(-*staleClaims)
		}
		return time.Now()
	}
	if err := store.ReleaseDeadClaims(ctx, st, log, releaseBefore()); err != nil {
		return err
	}
	if shared {
		rctx, stopReleasing := context.WithCancel(ctx)
		defer stopReleasing()
		go store.ReleaseStaleClaims(rctx, st, log, *staleClaims)
	}
	var demo *server.Demo
	if *demoOn {
		if demo, err = admin.EnsureDemo(ctx, demoUnits, server.DemoDocumentTypes(defs), server.DemoChecks()); err != nil {
			return fmt.Errorf("creating the demo organisation: %w", err)
		}
		if demo != nil {
			if demo.Workflow, err = admin.AllowDemoOrigin(ctx, demo.Workflow, *baseURL); err != nil {
				return fmt.Errorf("allowing the demo page on the demo workflow: %w", err)
			}
		}
	}
	srv, err := server.New(server.Config{
		BaseURL: *baseURL, FilesURL: *filesURL, FileURLTTL: *filesTTL, Workers: *workers, Logger: log,
		CORSOrigins:    splitList(*corsOrigins),
		TrustedProxies: proxies,
		MetricsToken:   *metricsToken,
		QueueTimeout:   *queueTimeout,
		RunTimeout:     *runTimeout,
		Webhooks:       wh.service,
		Mailer:         consoleMailer(wh, *data, log),
	}, st, fstore, engine, defs, keys)
	if err != nil {
		return Usagef("%v", err)
	}
	wh.dispatcher.Metrics = webhook.NewMetrics(srv.Metrics())
	// On SIGTERM the dispatcher stops claiming at once and gives the
	// attempts under way this long to finish, then hands the rest back to
	// the other replicas (a receiver's answer takes at most the sender's
	// 30 s timeout, which more than this only waits for hung receivers).
	wh.dispatcher.Grace = min(*shutdownTimeout, webhookGrace)
	wh.dispatcher.Lease = *webhookLease
	// Before serving: remove what a crash left (captures of verifications
	// never completed, temporary files), then store-only uploads whose
	// URLs have expired and verifications past retention, and again every
	// hour.
	if err := srv.SweepLeftovers(ctx, shared); err != nil {
		return fmt.Errorf("sweeping files left by the previous stop: %w", err)
	}
	srv.SweepExpired(ctx)
	go srv.SweepExpiredEvery(ctx, time.Hour)
	if demo != nil {
		printDemo(env, demo, *baseURL)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := srv.HTTPServer(*addr)
	// The web SDK (/sdk/web.js, /sdk/web.mjs) and its demo page (/demo)
	// are static files in front of the API.
	hs.Handler = webdist.Mount(hs.Handler)
	if *metricsAddr != "" {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.MetricsHandler())
		ms := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
		go func() {
			if err := ms.Serve(mln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics listener", "error", err)
			}
		}()
		defer ms.Close()
		log.Info("metrics", "addr", mln.Addr().String())
	}
	log.Info("listening", "addr", ln.Addr().String(), "base_url", *baseURL, "checks", strings.Join(idv.Registered(), ","))
	errc := make(chan error, 1)
	go func() {
		if *tlsCert != "" {
			errc <- hs.ServeTLS(ln, *tlsCert, *tlsKey)
			return
		}
		errc <- hs.Serve(ln)
	}()
	dctx, stopDispatch := context.WithCancel(ctx)
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		if err := wh.dispatcher.Run(dctx); err != nil {
			log.Error("webhook dispatcher", "error", err)
		}
	}()
	defer func() { stopDispatch(); <-dispatched }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	return shutdown(srv, hs, log, *shutdownDelay, *shutdownTimeout)
}

// webhookGrace bounds how long a stopping replica lets webhook attempts
// under way finish (Dispatcher.Grace).
const webhookGrace = 30 * time.Second

// shutdown stops a replica gracefully: /readyz turns 503 (Drain), new
// requests are still taken for delay while load balancers notice, then
// the listener closes and the running verifications finish (they are
// stored and billed once), for at most timeout. The webhook dispatcher,
// whose context ended with ctx, finishes or hands back its attempts
// meanwhile. A verification still running at the deadline is cut with
// the process: its claim is released at the next start (SQLite) or by
// another replica after staleClaimAge (PostgreSQL), nothing billed, and
// a retry of its request_id runs it once.
func shutdown(srv *server.Server, hs *http.Server, log *slog.Logger, delay, timeout time.Duration) error {
	srv.Drain()
	log.Info("shutting down: not ready any more", "delay", delay.String(), "timeout", timeout.String())
	time.Sleep(delay)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown deadline passed with requests running; they are cut short", "error", err)
		return hs.Close()
	}
	log.Info("shut down: every request finished")
	return nil
}

// envDuration reads a duration from the environment, def when unset or
// unreadable (the flag's own parsing then reports a bad value given on
// the command line).
func envDuration(env *Env, key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(env.Getenv(key)); err == nil {
		return d
	}
	return def
}

// parsePrefixes reads a comma-separated list of addresses (a /32 or /128)
// and CIDR prefixes.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range splitList(list) {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR prefix", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// defaultBaseURL is the address clients on this machine reach addr at.
func defaultBaseURL(addr string, tls bool) string {
	scheme := "http://"
	if tls {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return scheme + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + net.JoinHostPort(host, port)
}

func printDemo(env *Env, d *server.Demo, baseURL string) {
	w := env.Stdout
	fmt.Fprintln(w, "DEMO: first start on an empty database, so a demo organisation was created for trying the server.")
	fmt.Fprintf(w, "DEMO: the secret below is live: anyone who has it can spend the demo organisation's %d units. It is shown this once and stored only as a hash.\n", d.Organisation.Balance)
	fmt.Fprintln(w, "DEMO: for production start the first time with --demo=false (or TAMBUA_DEMO=off), or deactivate this client.")
	fmt.Fprintf(w, "  organisation_id  %d (%d units)\n", d.Organisation.ID, d.Organisation.Balance)
	fmt.Fprintf(w, "  client_id        %s\n", d.Client.ID)
	fmt.Fprintf(w, "  client_secret    %s\n", d.Secret)
	fmt.Fprintf(w, "  work_flow_id     %s (%s)\n", d.Workflow.ID, strings.Join(stepNames(d.Workflow), ", "))
	fmt.Fprintf(w, "  refresh_token    %s\n", d.Workflow.RefreshToken)
	fmt.Fprintf(w, "Get a token:  curl -s %s/oauth/token -d grant_type=client_credentials -d client_id=%s -d client_secret=%s\n",
		baseURL, d.Client.ID, d.Secret)
	fmt.Fprintf(w, "Web SDK demo: %s/demo?client_id=%s&work_flow_id=%s\n", baseURL, d.Client.ID, d.Workflow.ID)
}

func stepNames(w server.Workflow) []string {
	var out []string
	for _, c := range w.Definition.Checks {
		out = append(out, c.Name)
	}
	return out
}

// openData opens the server's database (PostgreSQL with --db, else
// SQLite in the data folder, which it creates) with its keys.
func openData(ctx context.Context, loc dataLocation) (backend, *server.Admin, server.Keys, error) {
	st, err := openBackend(ctx, *loc.dir, *loc.db)
	if err != nil {
		return nil, nil, server.Keys{}, err
	}
	keys, err := loadKeys(ctx, loc, st)
	if err != nil {
		st.Close()
		return nil, nil, server.Keys{}, err
	}
	return st, server.NewAdmin(st, keys), keys, nil
}

// errKeysNotShared is the refusal to run on a shared database without
// shared keys: each replica would otherwise sign with keys the others
// may not have (and the administration commands mint tokens too).
var errKeysNotShared = Usagef("--db: replicas on one database must share their signing keys: set TAMBUA_SIGNING_KEY " +
	"or --keys-file (env TAMBUA_KEYS_FILE) to the same secret on every replica and command. " +
	"`tambua keys generate` makes a new one; `tambua keys export --db URL` writes the keys this database holds, " +
	"so tokens and file URLs already handed out keep working (docs/deploy.md)")

// loadKeys returns the signing keys: the shared ones (--keys-file or
// TAMBUA_SIGNING_KEY) when given, else, on SQLite only, those kept in
// the database (created on first start).
func loadKeys(ctx context.Context, loc dataLocation, st server.Store) (server.Keys, error) {
	secret, from := "", ""
	if loc.getenv != nil {
		secret, from = loc.getenv("TAMBUA_SIGNING_KEY"), "TAMBUA_SIGNING_KEY"
	}
	if loc.keysFile != nil && *loc.keysFile != "" {
		if secret != "" {
			return server.Keys{}, Usagef("give the signing key once: TAMBUA_SIGNING_KEY or --keys-file, not both")
		}
		b, err := os.ReadFile(*loc.keysFile)
		if err != nil {
			return server.Keys{}, Usagef("--keys-file: %v", err)
		}
		secret, from = string(b), "--keys-file"
	}
	if strings.TrimSpace(secret) == "" {
		if loc.db != nil && *loc.db != "" {
			return server.Keys{}, errKeysNotShared
		}
		return server.LoadKeys(ctx, st)
	}
	k, err := server.ParseKeys(secret)
	if err != nil {
		// The error names the problem, never the value.
		return server.Keys{}, Usagef("%s: %v", from, err)
	}
	return k, nil
}

// backend is what serve needs of a database: the server's store and the
// webhooks'. server/sqlite and server/postgres are both.
type backend interface {
	store.Store
	webhook.Store
}

// openBackend opens the database dbURL names: PostgreSQL for a
// postgres:// or postgresql:// URL, else SQLite at DATA/tambua.db.
func openBackend(ctx context.Context, data, dbURL string) (backend, error) {
	switch {
	case dbURL == "":
		if err := os.MkdirAll(data, 0o750); err != nil {
			return nil, err
		}
		return sqlite.Open(ctx, filepath.Join(data, "tambua.db"))
	case strings.HasPrefix(dbURL, "postgres://"), strings.HasPrefix(dbURL, "postgresql://"):
		db, err := postgres.Open(ctx, dbURL)
		if err != nil {
			// The URL may hold a password: say which host, not the URL.
			return nil, fmt.Errorf("--db: %w", err)
		}
		return db, nil
	default:
		return nil, Usagef("--db: want a postgres:// URL (or nothing for SQLite in --data)")
	}
}

// openFiles opens the image store filesURL names: an S3 bucket for an
// s3:// URL, else a folder (DATA/files by default).
func openFiles(ctx context.Context, data, filesURL string) (store.FileStore, error) {
	switch {
	case filesURL == "":
		return files.Open(filepath.Join(data, "files"))
	case strings.HasPrefix(filesURL, "s3://"):
		b, err := s3.Open(ctx, filesURL)
		if err != nil {
			return nil, fmt.Errorf("--files: %w", err)
		}
		return b, nil
	case strings.Contains(filesURL, "://"):
		return nil, Usagef("--files: want s3://BUCKET?endpoint=... or a folder")
	default:
		return files.Open(filesURL)
	}
}

// staleClaimAge is the default --stale-claim-age: a claim older than this
// belongs to a verification that cannot still be running: a request waits
// at most the queue timeout (60 s) and runs at most the run timeout
// (90 s); the rest is margin for storing its images and result, and for
// the clocks of replicas.
const staleClaimAge = 5 * time.Minute

// claimMargin is the least margin --stale-claim-age keeps above the queue
// and run timeouts: the derived images are stored under 10 s each after
// the run (storeTimeout in server/verify.go), then the result in one
// transaction; 10 s covers two such writes and a second of clock skew.
const claimMargin = 10 * time.Second
