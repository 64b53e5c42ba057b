package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tambua/tambua/checks/webhookcheck"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// The webhook commands stand in for the console's webhook pages. Each
// takes --data (the folder of tambua serve) and prints JSON.

func init() {
	Register(&Command{Path: "webhooks create", Summary: "create a webhook (inactive); prints it as JSON", Run: runWebhooksCreate})
	Register(&Command{Path: "webhooks list", Summary: "list an organisation's webhooks with event count and success rate", Run: runWebhooksList})
	Register(&Command{Path: "webhooks show", Summary: "show one webhook", Run: webhookCommand("show")})
	Register(&Command{Path: "webhooks test", Summary: "send a test event to a webhook now (--event)", Run: runWebhooksTest})
	Register(&Command{Path: "webhooks validate", Summary: "check a webhook's CA certificate and a mutual-TLS handshake", Run: webhookCommand("validate")})
	Register(&Command{Path: "webhooks activate", Summary: "activate an inactive webhook", Run: webhookCommand("activate")})
	Register(&Command{Path: "webhooks pause", Summary: "pause a webhook; its events are held", Run: webhookCommand("pause")})
	Register(&Command{Path: "webhooks resume", Summary: "resume a paused webhook; held events are delivered", Run: webhookCommand("resume")})
	Register(&Command{Path: "webhooks delete", Summary: "delete a webhook and all its logs", Run: webhookCommand("delete")})
	Register(&Command{Path: "webhooks logs", Summary: "print a webhook's delivery log (--format json|csv)", Run: runWebhooksLogs})
	Register(&Command{Path: "webhooks stats", Summary: "print a webhook's delivery statistics", Run: webhookCommand("stats")})
}

// webhookFlags are the flags every webhook command shares.
type webhookFlags struct {
	data         dataLocation
	allowPrivate *bool
	// json is accepted for the admin commands' uniformity: the webhooks
	// commands always print JSON.
	json *bool
}

func newWebhookFlags(fs *flag.FlagSet, env *Env) webhookFlags {
	return webhookFlags{
		data:         dataFlag(fs, env),
		allowPrivate: fs.Bool("allow-private", false, "allow URLs on loopback and private addresses (development; as serve --allow-private-webhooks)"),
		json:         jsonFlag(fs),
	}
}

// open opens the data folder and a webhook service presenting the
// folder's development client certificate.
func (f webhookFlags) open(ctx context.Context) (backend, *webhook.Service, error) {
	st, _, _, err := openData(ctx, f.data)
	if err != nil {
		return nil, nil, err
	}
	id, err := webhook.DevIdentity(*f.data.dir)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, webhook.NewService(st, webhook.NewSender(id, &webhook.Guard{AllowPrivate: *f.allowPrivate})), nil
}

// run is the webhooks commands' frame, as adminCommand.run is the other
// admin commands': it opens the service, calls op and prints what op
// returns as JSON; op's error goes through explain (webhookErr, or
// asIs where a command passes its errors on unchanged).
func (f webhookFlags) run(ctx context.Context, env *Env, explain func(error) error, op func(st backend, svc *webhook.Service) (any, error)) error {
	return openCallPrint(ctx, f.open, explain, op, func(v any) error { return printJSON(env, v) })
}

func asIs(err error) error { return err }

// parseWithID parses flags that may come before or after one positional
// webhook id.
func parseWithID(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args, 1)
	if err != nil {
		return "", err
	}
	if len(pos) == 0 {
		return "", Usagef("give the webhook id")
	}
	return pos[0], nil
}

// webhookErr maps the caller's mistakes to exit status 2.
func webhookErr(err error) error {
	var ve *webhook.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, webhook.ErrNotFound), errors.Is(err, webhook.ErrTransition), errors.As(err, &ve):
		return &UsageError{Err: err}
	}
	return err
}

func printJSON(env *Env, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type headerList []webhook.Header

func (h *headerList) String() string { return fmt.Sprint(*h) }
func (h *headerList) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("want Name:Value, got %q", s)
	}
	*h = append(*h, webhook.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value), Enabled: true})
	return nil
}

func runWebhooksCreate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "webhooks create")
	wf := newWebhookFlags(fs, env)
	org := fs.Int64("org", 0, "organisation id (required)")
	typ := fs.String("type", webhook.TypeEventNotification, "event_notification or verification_check")
	name := fs.String("name", "", "name (required)")
	desc := fs.String("description", "", "description")
	url := fs.String("url", "", "https URL (required)")
	caFile := fs.String("ca-file", "", "PEM file of the CA that signed the endpoint's certificate (required)")
	secret := fs.String("secret", "", "HMAC secret for X-Service-Signature (recommended)")
	events := fs.String("events", "", "comma-separated events (event_notification)")
	method := fs.String("method", "POST", "POST, PUT or PATCH")
	notify := fs.String("notify-email", "", "address of the auto-pause email")
	reqSuccess := fs.Bool("require-success", true, "verification_check: the answer must carry success")
	reqScore := fs.Bool("require-score", true, "verification_check: the answer must carry a score")
	minThreshold := fs.Float64("min-threshold", webhook.DefaultMinThreshold, "verification_check: minimum score in [0, 1]")
	var headers headerList
	fs.Var(&headers, "header", "custom header Name:Value (repeatable)")
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	if *org <= 0 || *name == "" || *url == "" || *caFile == "" {
		return Usagef("--org, --name, --url and --ca-file are required")
	}
	ca, err := os.ReadFile(*caFile)
	if err != nil {
		return Usagef("--ca-file: %v", err)
	}
	caText := string(ca)
	in := webhook.Input{Type: typ, Name: name, Description: desc, URL: url, Method: method, CACertificate: &caText,
		Secret: secret, NotifyEmail: notify}
	if len(headers) > 0 {
		h := []webhook.Header(headers)
		in.Headers = &h
	}
	if *events != "" {
		ev := strings.Split(*events, ",")
		for i := range ev {
			ev[i] = strings.TrimSpace(ev[i])
		}
		in.Events = &ev
	}
	if *typ == webhook.TypeVerificationCheck {
		in.Criteria = &webhook.CriteriaInput{RequireSuccess: reqSuccess, RequireScore: reqScore, MinThreshold: minThreshold}
	}
	return wf.run(ctx, env, webhookErr, func(st backend, svc *webhook.Service) (any, error) {
		if _, err := st.Organisation(ctx, *org); err != nil {
			return nil, Usagef("organisation %d: %v", *org, err)
		}
		w, err := svc.Create(ctx, *org, in)
		return &w, err
	})
}

func runWebhooksList(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "webhooks list")
	wf := newWebhookFlags(fs, env)
	org := fs.Int64("org", 0, "organisation id (required)")
	if _, err := parseArgs(fs, args, 0); err != nil {
		return err
	}
	if *org <= 0 {
		return Usagef("--org is required")
	}
	return wf.run(ctx, env, asIs, func(_ backend, svc *webhook.Service) (any, error) {
		ws, err := svc.List(ctx, *org)
		return map[string]any{"webhooks": ws}, err
	})
}

// webhookCommand runs the commands that take only a webhook id.
func webhookCommand(op string) func(ctx context.Context, env *Env, args []string) error {
	return func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, "webhooks "+op)
		wf := newWebhookFlags(fs, env)
		id, err := parseWithID(fs, args)
		if err != nil {
			return err
		}
		return wf.run(ctx, env, webhookErr, func(_ backend, svc *webhook.Service) (any, error) {
			switch op {
			case "show":
				w, err := svc.Get(ctx, 0, id)
				return &w, err
			case "activate", "pause", "resume":
				move := map[string]func(context.Context, int64, string) (webhook.Webhook, error){
					"activate": svc.Activate, "pause": svc.Pause, "resume": svc.Resume}[op]
				w, err := move(ctx, 0, id)
				return &w, err
			case "delete":
				return map[string]any{"deleted": id}, svc.Delete(ctx, 0, id)
			case "stats":
				return svc.Stats(ctx, 0, id)
			case "validate":
				return svc.ValidateCertificate(ctx, 0, id)
			}
			return nil, nil
		})
	}
}

func runWebhooksTest(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "webhooks test")
	wf := newWebhookFlags(fs, env)
	event := fs.String("event", webhook.EventVerificationCompleted, "event to send: "+strings.Join(webhook.Events, ", "))
	id, err := parseWithID(fs, args)
	if err != nil {
		return err
	}
	var res webhook.TestResult
	if err := wf.run(ctx, env, webhookErr, func(_ backend, svc *webhook.Service) (any, error) {
		var err error
		res, err = svc.Test(ctx, 0, id, *event)
		return res, err
	}); err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("test delivery failed: %s", res.Error)
	}
	return nil
}

func runWebhooksLogs(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "webhooks logs")
	wf := newWebhookFlags(fs, env)
	format := fs.String("format", "json", "json or csv")
	from := fs.String("from", "", "from this time (RFC 3339 or YYYY-MM-DD)")
	to := fs.String("to", "", "before this time (RFC 3339, or YYYY-MM-DD for the end of that day)")
	status := fs.String("status", "", "Success, Failed or Retrying")
	event := fs.String("event", "", "event type")
	limit := fs.Int("limit", 0, "at most this many lines (0: all)")
	id, err := parseWithID(fs, args)
	if err != nil {
		return err
	}
	if *format != "json" && *format != "csv" {
		return Usagef("--format must be json or csv")
	}
	if *wf.json && *format == "csv" {
		return Usagef("--json and --format csv exclude each other")
	}
	f, err := webhook.ParseLogFilter(*from, *to, *status, *event)
	if err != nil {
		return webhookErr(err)
	}
	f.Limit = *limit
	st, svc, err := wf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	entries, err := svc.Logs(ctx, 0, id, f)
	if err != nil {
		return webhookErr(err)
	}
	if *format == "csv" {
		return webhook.WriteCSV(env.Stdout, entries)
	}
	return printJSON(env, map[string]any{"logs": entries})
}

// serveWebhooks is the webhook side of tambua serve: the client identity,
// the address guard, the mailer, the dispatcher and the custom_webhook
// check's transport.
type serveWebhooks struct {
	allowPrivate *bool
	certFile     *string
	keyFile      *string
	caFile       *string
	alertTo      *string
	smtpHost     *string
	smtpPort     *int
	smtpUser     *string
	smtpFrom     *string
	smtpTLS      *string
	getenv       func(string) string
}

func addServeWebhookFlags(fs *flag.FlagSet, env *Env) *serveWebhooks {
	port, _ := strconv.Atoi(env.Getenv("TAMBUA_SMTP_PORT"))
	return &serveWebhooks{
		allowPrivate: fs.Bool("allow-private-webhooks", false, "let webhooks call loopback, private and link-local addresses (development and tests only)"),
		certFile:     fs.String("webhook-client-cert", env.Getenv("TAMBUA_WEBHOOK_CLIENT_CERT"), "client certificate (PEM) presented to webhooks; default: a development one generated in --data"),
		keyFile:      fs.String("webhook-client-key", env.Getenv("TAMBUA_WEBHOOK_CLIENT_KEY"), "key of --webhook-client-cert"),
		caFile:       fs.String("webhook-client-ca", env.Getenv("TAMBUA_WEBHOOK_CLIENT_CA"), "CA of --webhook-client-cert, to hand to receivers (optional)"),
		alertTo:      fs.String("webhook-alert-email", env.Getenv("TAMBUA_WEBHOOK_ALERT_EMAIL"), "recipient of auto-pause emails for webhooks without notify_email"),
		smtpHost:     fs.String("smtp-host", env.Getenv("TAMBUA_SMTP_HOST"), "SMTP server for notification mail; without it mail is recorded in DATA/mail.jsonl"),
		smtpPort:     fs.Int("smtp-port", port, "SMTP port (587 when 0)"),
		smtpUser:     fs.String("smtp-user", env.Getenv("TAMBUA_SMTP_USER"), "SMTP user (password from TAMBUA_SMTP_PASSWORD)"),
		smtpFrom:     fs.String("smtp-from", env.Getenv("TAMBUA_SMTP_FROM"), "From address of notification mail"),
		smtpTLS:      fs.String("smtp-tls", envOr(env, "TAMBUA_SMTP_TLS", "starttls"), "starttls, tls or none"),
		getenv:       env.Getenv,
	}
}

// webhookRuntime is what serve needs from the webhook side.
type webhookRuntime struct {
	service    *webhook.Service
	dispatcher *webhook.Dispatcher
	check      idv.Check
	// smtp is the SMTP mailer when one is configured (the console sends
	// through it too), else nil.
	smtp webhook.Mailer
}

func (o *serveWebhooks) setup(data string, shared bool, st backend, log *slog.Logger) (*webhookRuntime, error) {
	var id *webhook.Identity
	var err error
	if *o.certFile != "" || *o.keyFile != "" {
		id, err = webhook.LoadIdentity(*o.certFile, *o.keyFile, *o.caFile)
	} else if shared {
		// A development identity is generated per data folder: replicas
		// would each present another certificate (and CA) to receivers.
		return nil, Usagef("--db: replicas must present one webhook client certificate: set --webhook-client-cert and " +
			"--webhook-client-key (env TAMBUA_WEBHOOK_CLIENT_CERT, TAMBUA_WEBHOOK_CLIENT_KEY) to the same files on every replica (docs/deploy.md)")
	} else {
		id, err = webhook.DevIdentity(data)
		if err == nil {
			log.Info("webhook client certificate: development identity; receivers should trust this CA",
				"ca_file", filepath.Join(data, webhook.ClientCAFile))
		}
	}
	if err != nil {
		return nil, err
	}
	if *o.allowPrivate {
		log.Warn("webhooks may call private and loopback addresses (--allow-private-webhooks): development only")
	}
	var mailer webhook.Mailer
	if *o.smtpHost != "" {
		m, err := webhook.NewSMTPMailer(webhook.SMTPConfig{Host: *o.smtpHost, Port: *o.smtpPort, Username: *o.smtpUser,
			Password: o.getenv("TAMBUA_SMTP_PASSWORD"), From: *o.smtpFrom, TLS: *o.smtpTLS})
		if err != nil {
			return nil, Usagef("%v", err)
		}
		mailer = m
	} else {
		mailer = &webhook.DevMailer{Path: filepath.Join(data, "mail.jsonl")}
	}
	sender := webhook.NewSender(id, &webhook.Guard{AllowPrivate: *o.allowPrivate})
	d := &webhook.Dispatcher{Store: st, Sender: sender, Mailer: mailer, AlertTo: *o.alertTo, Logger: log,
		Workflows: workflowSettings(st)}
	svc := webhook.NewService(st, sender)
	svc.Notify = d.Notify
	caller := &webhook.CheckCaller{Store: st, Sender: sender, OrgOf: func(ctx context.Context, clientID string) (int64, error) {
		c, err := st.Client(ctx, clientID)
		return c.OrganisationID, err
	}}
	rt := &webhookRuntime{service: svc, dispatcher: d, check: webhookcheck.New(caller)}
	if *o.smtpHost != "" {
		rt.smtp = mailer
	}
	return rt, nil
}

// workflowSettings reads the notification settings of a stored workflow
// for the dispatcher.
func workflowSettings(st server.Store) webhook.WorkflowLookup {
	return func(ctx context.Context, id string) (webhook.WorkflowSettings, bool, error) {
		w, err := st.Workflow(ctx, id)
		if errors.Is(err, server.ErrNotFound) {
			return webhook.WorkflowSettings{}, false, nil
		}
		if err != nil {
			return webhook.WorkflowSettings{}, false, err
		}
		s := webhook.WorkflowSettings{Name: w.Definition.Name}
		if w.Definition.ManualReview != nil {
			s.ReviewerEmail = w.Definition.ManualReview.ReviewerEmail
		}
		if h := w.Definition.Webhook; h != nil {
			s.HookURL, s.HookEvents = h.URL, h.Events
		}
		return s, true, nil
	}
}
