package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tambua/tambua/docs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// Limits are the documented input limits (docs/server.md).
type Limits struct {
	// FileBytes is the largest accepted file part or decoded image.
	FileBytes int64
	// RequestBytes is the largest accepted request body.
	RequestBytes int64
	// MessageBytes is the largest /upload message part.
	MessageBytes int64
	// Pixels is the largest accepted width times height of one image.
	Pixels int64
	// FileParts is the most file parts one /upload may carry.
	FileParts int
	// TokenRate and TokenBurst limit failed secret checks per client and
	// caller address, and refreshAccessToken calls per workflow and caller
	// address (per second, and the burst allowed above that rate).
	TokenRate  float64
	TokenBurst int
	// LargeBodies is the most authenticated request bodies (/upload,
	// /v1/verify, authenticated /postdata) held at once, from reading to
	// answer; others wait up to the queue timeout, then get code 230.
	// 0 means DefaultLimits'.
	LargeBodies int
	// StoreOnlyBytes is what one client may store per day through
	// no_adapter and single-file uploads (which run and bill nothing):
	// a budget refilled evenly over 24 hours. 0 means DefaultLimits'.
	StoreOnlyBytes int64
}

// DefaultLimits are the limits of a server built without explicit ones.
var DefaultLimits = Limits{
	FileBytes:    10 << 20,
	RequestBytes: 32 << 20,
	MessageBytes: 64 << 10,
	// 16 MP: a phone photo sent as taken (12 to 12.5 MP, 4:3 up to
	// 4608 x 3456) fits; the spec advises about 2 MP (long edge 1600 px)
	// and the SDK sends less. A 16-bit PNG at the cap decodes to 128 MB,
	// against 320 MB at the 40 MP allowed before.
	Pixels:     16_000_000,
	FileParts:  8,
	TokenRate:  1,
	TokenBurst: 20,
	// 16 bodies of at most 32 MiB bound what requests can hold at about
	// 512 MiB, plus their decoded images, on a server of a few GiB; with
	// the default workers (the cores) that is several requests queued per
	// worker, which keeps them busy.
	LargeBodies: 16,
	// Three full uploads' worth (32 MiB each) a day, refilled evenly:
	// the legacy one-off upload stores a capture or two, and files
	// expire with their URLs (FileURLTTL), so a client holds at most
	// about twice this at any time.
	StoreOnlyBytes: 96 << 20,
}

// Config configures a Server.
type Config struct {
	// BaseURL is {base_url}: the public address of the REST interface.
	BaseURL string
	// FilesURL is {files_url}: the public address stored images are served
	// from (BaseURL + "/files" when empty). Its path must end in /files,
	// where this server serves them, or a proxy must map it there.
	FilesURL string
	// FileURLTTL is how long a signed file URL stays valid (24 h default).
	FileURLTTL time.Duration
	// Workers is the number of verifications run at once (the number of
	// cores when zero).
	Workers int
	// QueueTimeout bounds how long a request waits for a free worker
	// before it is answered with code 230 (60 s default: with a typical
	// 15 to 30 s run, inside the client's 120 s).
	QueueTimeout time.Duration
	// RunTimeout bounds one verification's checks (90 s default); a check
	// still running then is cancelled and counts as could-not-run.
	RunTimeout time.Duration
	Limits     Limits
	Logger     *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
	// CORSOrigins are the browser origins (https://app.example.com, or *)
	// allowed to call /postdata, /upload and /v1/verify, for the web SDK.
	// Empty: no CORS headers, so browsers on other origins are refused.
	CORSOrigins []string
	// TrustedProxies are the proxies (load balancers) whose X-Forwarded-For
	// names the caller's address for rate limits. Empty: the header is
	// ignored and the peer's address is used.
	TrustedProxies []netip.Prefix
	// MetricsToken, when set, is the Bearer token /metrics on this
	// handler asks for. Empty: /metrics here answers 404, and metrics are
	// served only where MetricsHandler is mounted (tambua serve
	// --metrics-addr), so a public API listener never shows them.
	MetricsToken string
	// Webhooks serves the webhook API (docs/webhooks.md). When nil and the
	// store keeps webhooks, a service that may not call private addresses
	// and presents no client certificate is used.
	Webhooks *webhook.Service
	// Mailer sends the console's mail (sign-up codes, invitations). Nil:
	// mail is only kept in memory (tests); tambua serve passes SMTP or a
	// mailbox folder (docs/console.md).
	Mailer webhook.Mailer
}

// Server serves the REST interface.
type Server struct {
	cfg       Config
	store     Store
	files     FileStore
	engine    *idv.Engine
	defs      idv.Definitions
	keys      Keys
	tokens    tokens
	log       *slog.Logger
	mux       *http.ServeMux
	routes    []Route
	metrics   *metrics
	workers   chan struct{}
	limiter   *limiter // failed secret checks per client and address
	ipLimiter *limiter // failed token requests per address
	// refreshLimiter: refreshAccessToken calls per workflow (or client)
	// and address.
	refreshLimiter *limiter
	storeLimiter   *limiter // bytes of store-only uploads per client
	sessions       *sdkSessions
	hashing        chan struct{}
	decoding       chan struct{} // full image decodes at once (checkImage)
	bodies         chan struct{} // authenticated large bodies held at once
	filesPrefix    string
	draining       atomic.Bool // Drain: /readyz says so

	prepMu   sync.Mutex
	prepared map[string]preparedEntry

	// consoleAdmin is the console's Admin, copied per request with the
	// member as actor; console is nil when the store has no console tables.
	consoleAdmin *Admin
	console      *console
}

type preparedEntry struct {
	version int64
	p       *idv.Prepared
}

// Route is one registered method and path, as the OpenAPI document lists it.
type Route struct {
	Method string
	Path   string
}

// New returns a server. defs are the document definitions the engine was
// built with (the server checks config values against them).
func New(cfg Config, st Store, fs FileStore, engine *idv.Engine, defs idv.Definitions, keys Keys) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.QueueTimeout <= 0 {
		cfg.QueueTimeout = 60 * time.Second
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 90 * time.Second
	}
	if cfg.FileURLTTL <= 0 {
		cfg.FileURLTTL = 24 * time.Hour
	}
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
	}
	if cfg.Limits.LargeBodies <= 0 {
		cfg.Limits.LargeBodies = DefaultLimits.LargeBodies
	}
	if cfg.Limits.StoreOnlyBytes <= 0 {
		cfg.Limits.StoreOnlyBytes = DefaultLimits.StoreOnlyBytes
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if _, err := url.ParseRequestURI(cfg.BaseURL); err != nil || cfg.BaseURL == "" {
		return nil, fmt.Errorf("server: base URL %q is not an absolute URL", cfg.BaseURL)
	}
	if cfg.FilesURL == "" {
		cfg.FilesURL = cfg.BaseURL + "/files"
	}
	cfg.FilesURL = strings.TrimRight(cfg.FilesURL, "/")
	if _, err := url.ParseRequestURI(cfg.FilesURL); err != nil {
		return nil, fmt.Errorf("server: files URL %q is not an absolute URL", cfg.FilesURL)
	}
	if len(keys.Token) < 32 || len(keys.Files) < 32 {
		return nil, errors.New("server: signing keys must have at least 32 bytes")
	}
	s := &Server{
		cfg: cfg, store: st, files: fs, engine: engine, defs: defs, keys: keys,
		tokens:         tokens{key: keys.Token, now: cfg.Now},
		log:            cfg.Logger,
		mux:            http.NewServeMux(),
		metrics:        newMetrics(),
		workers:        make(chan struct{}, cfg.Workers),
		limiter:        newLimiter(cfg.Limits.TokenRate, cfg.Limits.TokenBurst, cfg.Now),
		ipLimiter:      newLimiter(cfg.Limits.TokenRate*ipFactor, cfg.Limits.TokenBurst*ipFactor, cfg.Now),
		refreshLimiter: newLimiter(cfg.Limits.TokenRate, cfg.Limits.TokenBurst, cfg.Now),
		storeLimiter:   newLimiter(float64(cfg.Limits.StoreOnlyBytes)/(24*60*60), int(cfg.Limits.StoreOnlyBytes), cfg.Now),
		sessions:       newSDKSessions(cfg.Now),
		hashing:        make(chan struct{}, 2*runtime.NumCPU()),
		decoding:       make(chan struct{}, runtime.NumCPU()),
		bodies:         make(chan struct{}, cfg.Limits.LargeBodies),
		prepared:       map[string]preparedEntry{},
	}
	if rl, ok := st.(store.RateLimits); ok {
		// Replicas on one database share their buckets: a limit holds
		// across them, not once per replica (docs/deploy.md).
		warn := func(err error) {
			s.log.Warn("rate limits: the shared buckets failed; this replica's own are used meanwhile", "err", err)
		}
		for name, l := range map[string]*limiter{"secret": s.limiter, "addr": s.ipLimiter, "refresh": s.refreshLimiter,
			"store": s.storeLimiter, "sdk-addr": s.sessions.perAddr, "sdk-flow": s.sessions.perFlow, "sdk-uses": s.sessions.uses,
			"sdk-handoffs": s.sessions.handoffs, "sdk-handoff-used": s.sessions.handoffUsed} {
			l.share(rl, name, warn)
		}
	}
	s.handle("POST /oauth/token", "oauth_token", s.handleOAuthToken)
	s.handle("POST /postdata", "postdata", s.handlePostdata)
	s.handle("POST /upload", "upload", s.handleUpload)
	s.handle("POST /v1/verify", "v1_verify", s.handleVerify)
	s.handle("GET /files/{exp}/{sig}/{key...}", "files", s.handleFile)
	s.handle("GET /healthz", "healthz", s.handleHealth)
	s.handle("GET /readyz", "readyz", s.handleReady)
	s.handle("GET /metrics", "metrics", s.handleMetrics)
	s.handle("GET /openapi.yaml", "openapi", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(docs.OpenAPI)
	})
	whs := cfg.Webhooks
	if whs == nil {
		if ws, ok := st.(webhook.Store); ok {
			whs = webhook.NewService(ws, webhook.NewSender(nil, &webhook.Guard{}))
		}
	}
	if whs != nil {
		s.mountWebhooks(whs)
	}
	if rv, ok := st.(Reviews); ok {
		s.mountReviews(rv)
	}
	if cs, ok := st.(store.Console); ok {
		if s.cfg.Mailer == nil {
			s.cfg.Mailer = &webhook.DevMailer{}
		}
		s.consoleAdmin = &Admin{store: st, tokens: tokens{key: keys.Token, now: cfg.Now}}
		if engine != nil {
			s.consoleAdmin.Steps = engine
		}
		s.mountConsole(cs, whs)
	}
	s.mux.Handle("/", s.instrument("not_found", func(w http.ResponseWriter, r *http.Request) {
		writeAPIError(w, apiErr(CodeNotFound, "no such path"), requestIDFrom(r.Context()))
	}))
	return s, nil
}

// Routes lists the registered routes.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// Metrics is the server's Prometheus registry, to which callers may add.
func (s *Server) Metrics() *prometheus.Registry { return s.metrics.reg }

func (s *Server) handle(pattern, name string, h http.HandlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	s.routes = append(s.routes, Route{Method: method, Path: path})
	s.mux.Handle(pattern, s.instrument(name, h))
	if method == http.MethodGet {
		return
	}
	// Any other method on a known path gets the error shape, not the
	// mux's plain text.
	s.mux.Handle(path, s.instrument(name, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", method)
		writeAPIError(w, apiErr(CodeNotAllowed, "use %s %s", method, path), requestIDFrom(r.Context()))
	}))
}

// apiRoute is one method and path of a JSON API and its handler.
type apiRoute struct {
	method, path, name string
	h                  http.Handler
}

// mountAPI registers routes whose paths may share several methods; any
// other method on one of their paths gets the error shape with Allow
// listing the path's methods, registered once per path.
func (s *Server) mountAPI(routes []apiRoute) {
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range routes {
		s.routes = append(s.routes, Route{Method: rt.method, Path: rt.path})
		s.mux.Handle(rt.method+" "+rt.path, s.instrument(rt.name, rt.h.ServeHTTP))
		if _, seen := allowed[rt.path]; !seen {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	for _, p := range paths {
		methods := strings.Join(allowed[p], ", ")
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", methods)
			writeAPIError(w, apiErr(CodeNotAllowed, "use %s %s", methods, p), requestIDFrom(r.Context()))
		})
	}
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cors(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// corsPaths are the endpoints a browser SDK calls. The token endpoint is
// not among them: a client secret must never be in a browser.
var corsPaths = map[string]bool{"/postdata": true, "/upload": true, "/v1/verify": true}

// cors adds the CORS headers for an allowed origin and answers preflight
// requests; it reports whether the request has been answered. Tokens travel
// in the Authorization header, never in cookies, so credentials are not
// allowed.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(s.cfg.CORSOrigins) == 0 || !corsPaths[r.URL.Path] {
		return false
	}
	allowed := false
	for _, o := range s.cfg.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			allowed = true
			break
		}
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	if !allowed {
		return false
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, WWW-Authenticate")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "POST")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// HTTPServer returns an http.Server for addr with timeouts that let a
// verification run its full course: the spec asks clients to wait 120 s.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       120 * time.Second,
		WriteTimeout:      180 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

type ctxKey int

const requestIDKey ctxKey = 0

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// instrument adds a request id, a JSON access log line and metrics. The
// log names the path, status and duration: never headers, bodies or
// query strings, where tokens, secrets and signatures travel.
func (s *Server) instrument(name string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := sanitizeRequestID(r.Header.Get("X-Request-Id"))
		if rid == "" {
			rid = idv.NewRequestID()
		}
		w.Header().Set("X-Request-Id", rid)
		ctx := context.WithValue(r.Context(), requestIDKey, rid)
		sw := &statusWriter{ResponseWriter: w}
		s.metrics.inflight.WithLabelValues(name).Inc()
		defer s.metrics.inflight.WithLabelValues(name).Dec()
		h(sw, r.WithContext(ctx))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		s.metrics.requests.WithLabelValues(name, fmt.Sprint(sw.status)).Inc()
		s.metrics.latency.WithLabelValues(name).Observe(d.Seconds())
		path := r.URL.Path
		switch {
		case name == "files":
			path = "/files/..." // the path carries a signature
		case name == "not_found":
			path = "(unknown)" // free text from the caller
		}
		s.log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("request_id", rid), slog.String("method", r.Method), slog.String("path", path),
			slog.Int("status", sw.status), slog.Int64("bytes", sw.bytes), slog.Duration("duration", d))
	})
}

// sanitizeRequestID keeps a caller's X-Request-Id only when it is a short
// token of safe characters, so it cannot forge log lines.
func sanitizeRequestID(s string) string {
	if len(s) == 0 || len(s) > 128 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	return s
}

func signMap(key []byte, claims map[string]any) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims(claims)).SignedString(key)
}
