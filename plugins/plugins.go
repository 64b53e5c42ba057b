// Package plugins runs custom checks as separate processes with
// hashicorp/go-plugin over gRPC, and makes each loaded plugin an ordinary
// idv.Check, so the engine cannot tell a plugin from a built-in.
//
// A plugin is a program whose main calls Serve with its check:
//
//	func main() { plugins.Serve(mycheck.New()) }
//
// The host loads it with Load. The caller's context, and so its deadline,
// crosses the process boundary with every call. A plugin that crashes,
// hangs past its deadline or answers garbage makes the check return an
// error, which the engine turns into review; the host process never
// crashes with it, and a crashed plugin is restarted on the next run.
package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/plugins/internal/pb"
)

// Handshake is shared by host and plugins. It is not a security measure: it
// stops a user from running a plugin binary by hand and tells a plugin it is
// being run by Tambua.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "TAMBUA_PLUGIN",
	MagicCookieValue: "5a1c7d0e-check",
}

// pluginName is the key of the check in the plugin set.
const pluginName = "check"

// maxMessage bounds one gRPC message: the captures of one verification.
const maxMessage = 64 << 20

// versionedSets is the protocol history: protocol 1 is pb (tambua.plugin.v1).
func versionedSets(impl idv.Check) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		1: {pluginName: &checkPlugin{impl: impl}},
	}
}

// checkPlugin is the go-plugin glue for both sides; gRPC only.
type checkPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl idv.Check // set on the plugin side only
}

func (p *checkPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterCheckServer(s, &server{impl: p.impl})
	return nil
}

func (p *checkPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return pb.NewCheckClient(cc), nil
}

// Serve runs check as a plugin. It is what a plugin's main calls; it does
// not return while the host keeps the plugin.
func Serve(check idv.Check) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: versionedSets(check),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
			return grpc.NewServer(opts...)
		},
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Warn, JSONFormat: true}),
	})
}

// Options tune a loaded plugin.
type Options struct {
	// Args are passed to the plugin program.
	Args []string
	// Timeout bounds one run when the caller's context has no deadline.
	Timeout time.Duration
	// StartTimeout bounds the plugin's start-up handshake.
	StartTimeout time.Duration
	// Stderr receives the plugin's own log output (default: discarded).
	Stderr io.Writer
}

// Check is a plugin process seen as an idv.Check.
type Check struct {
	path string
	opts Options
	name string
	cost int

	mu     sync.Mutex
	client *plugin.Client
	rpc    pb.CheckClient
}

var (
	_ idv.Check  = (*Check)(nil)
	_ idv.Closer = (*Check)(nil)
)

// ErrPlugin marks failures of the plugin process or its answers.
var ErrPlugin = errors.New("plugins: plugin failed")

// Load starts the plugin program at path and asks it for its name and cost.
// A plugin may not take the name of a built-in check.
func Load(ctx context.Context, path string, opts Options) (*Check, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	c := &Check{path: path, opts: opts}
	rpc, err := c.connect()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	d, err := rpc.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %s: describe: %v", ErrPlugin, path, err)
	}
	if _, builtin := idv.Info(d.Name); builtin {
		c.Close()
		return nil, fmt.Errorf("plugins: %s: name %q belongs to a built-in check", path, d.Name)
	}
	if d.Cost < 0 || d.Cost > 100 {
		c.Close()
		return nil, fmt.Errorf("plugins: %s: unit cost %d is not in 0..100", path, d.Cost)
	}
	if !idv.ValidCheckName(d.Name) {
		c.Close()
		return nil, fmt.Errorf("plugins: %s: %q is not a check name (lower case letters, digits and _)", path, d.Name)
	}
	c.name, c.cost = d.Name, int(d.Cost)
	return c, nil
}

// connect starts the process if it is not running (first use, or after a
// crash) and returns its client.
func (c *Check) connect() (pb.CheckClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil && !c.client.Exited() {
		return c.rpc, nil
	}
	if c.client != nil {
		c.client.Kill()
	}
	stderr := c.opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: versionedSets(nil),
		Cmd:              exec.Command(c.path, c.opts.Args...),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     c.opts.StartTimeout,
		SyncStderr:       stderr,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: stderr, Level: hclog.Warn}),
		GRPCDialOptions: []grpc.DialOption{
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		},
	})
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("%w: %s: start: %v", ErrPlugin, c.path, err)
	}
	raw, err := proto.Dispense(pluginName)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("%w: %s: dispense: %v", ErrPlugin, c.path, err)
	}
	rpc, ok := raw.(pb.CheckClient)
	if !ok {
		client.Kill()
		return nil, fmt.Errorf("%w: %s: unexpected client type %T", ErrPlugin, c.path, raw)
	}
	c.client, c.rpc = client, rpc
	return rpc, nil
}

// Name is the check name the plugin declared.
func (c *Check) Name() string { return c.name }

// Cost is the unit cost the plugin declared.
func (c *Check) Cost() int { return c.cost }

// Close stops the plugin process.
func (c *Check) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil {
		c.client.Kill()
		c.client = nil
	}
	return nil
}

// Run sends the case to the plugin and turns its answer into an outcome.
func (c *Check) Run(ctx context.Context, cs *idv.Case) (idv.Outcome, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	req, err := encodeCase(cs)
	if err != nil {
		return idv.Outcome{}, err
	}
	rpc, err := c.connect()
	if err != nil {
		return idv.Outcome{}, err
	}
	resp, err := rpc.Run(ctx, req)
	if err != nil {
		return idv.Outcome{}, fmt.Errorf("%w: %s: %v", ErrPlugin, c.name, err)
	}
	return decodeOutcome(resp)
}

func encodeCase(cs *idv.Case) (*pb.RunRequest, error) {
	schema, fields := cs.Fields()
	req := &pb.RunRequest{
		Config:       cs.Config,
		Country:      cs.Country,
		RequestId:    cs.RequestID,
		ClientId:     cs.ClientID,
		WorkflowId:   cs.WorkflowID,
		Images:       map[string]*pb.Image{},
		FieldSchema:  schema,
		Fields:       fields,
		DocumentType: cs.DocumentType(),
		Threshold:    cs.Step.Threshold,
		HasThreshold: cs.Step.HasThreshold,
	}
	req.NowUnixMs = cs.Now.UnixMilli()
	for slot, img := range cs.Images {
		req.Images[slot] = &pb.Image{Data: img.Data, ContentType: img.ContentType}
	}
	var err error
	if cs.Definition != nil {
		if req.DefinitionJson, err = json.Marshal(cs.Definition); err != nil {
			return nil, err
		}
	}
	if m := cs.MRZ(); m != nil {
		if req.MrzJson, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	if cs.Step.Params != nil {
		if req.ParamsJson, err = json.Marshal(cs.Step.Params); err != nil {
			return nil, fmt.Errorf("plugins: params: %w", err)
		}
	}
	if cs.Metadata != nil {
		if req.MetadataJson, err = json.Marshal(cs.Metadata); err != nil {
			return nil, fmt.Errorf("plugins: metadata: %w", err)
		}
	}
	return req, nil
}

func decodeOutcome(resp *pb.RunResponse) (idv.Outcome, error) {
	st := idv.Status(resp.Status)
	switch st {
	case idv.StatusPassed, idv.StatusReview, idv.StatusFailed, idv.StatusError:
	default:
		return idv.Outcome{}, fmt.Errorf("%w: unknown status %q", ErrPlugin, resp.Status)
	}
	if resp.HasConfidence && !(resp.Confidence >= 0 && resp.Confidence <= 1) {
		return idv.Outcome{}, fmt.Errorf("%w: confidence %v is not in [0, 1]", ErrPlugin, resp.Confidence)
	}
	out := idv.Outcome{
		Status:        st,
		Confidence:    resp.Confidence,
		HasConfidence: resp.HasConfidence,
		Reasons:       resp.Reasons,
		Flags:         resp.Flags,
	}
	for _, p := range resp.Pieces {
		out.Pieces = append(out.Pieces, idv.ScorePiece{Name: p.Name, Value: p.Value, Weight: p.Weight, Note: p.Note})
	}
	return out, nil
}

// server is the plugin side: it rebuilds a Case from the request and runs
// the plugin's check on it.
type server struct {
	pb.UnimplementedCheckServer
	impl idv.Check
}

func (s *server) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return &pb.DescribeResponse{Name: s.impl.Name(), Cost: int32(s.impl.Cost())}, nil
}

func (s *server) Run(ctx context.Context, req *pb.RunRequest) (resp *pb.RunResponse, err error) {
	// A panicking check answers with an error instead of taking the plugin
	// process, and the checks after it, down.
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, fmt.Errorf("check %s panicked: %v", s.impl.Name(), v)
		}
	}()
	cs, err := decodeCase(req)
	if err != nil {
		return nil, err
	}
	out, err := s.impl.Run(ctx, cs)
	if err != nil {
		return nil, err
	}
	resp = &pb.RunResponse{
		Status:        string(out.Status),
		Confidence:    out.Confidence,
		HasConfidence: out.HasConfidence,
		Reasons:       out.Reasons,
		Flags:         out.Flags,
	}
	for _, p := range out.Pieces {
		resp.Pieces = append(resp.Pieces, &pb.ScorePiece{Name: p.Name, Value: p.Value, Weight: p.Weight, Note: p.Note})
	}
	return resp, nil
}

func decodeCase(req *pb.RunRequest) (*idv.Case, error) {
	images := make(map[string]idv.Image, len(req.Images))
	for slot, img := range req.Images {
		images[slot] = idv.Image{Data: img.GetData(), ContentType: img.GetContentType()}
	}
	cs := idv.NewCase(images)
	cs.Config, cs.Country, cs.RequestID = req.Config, req.Country, req.RequestId
	cs.ClientID, cs.WorkflowID = req.ClientId, req.WorkflowId
	cs.SetFields(req.FieldSchema, req.Fields)
	cs.SetDocumentType(req.DocumentType)
	cs.Step = idv.Step{Threshold: req.Threshold, HasThreshold: req.HasThreshold}
	cs.Now = time.UnixMilli(req.NowUnixMs).UTC()
	cs.Definition = &idv.DocumentDefinition{}
	if len(req.DefinitionJson) > 0 {
		if err := json.Unmarshal(req.DefinitionJson, cs.Definition); err != nil {
			return nil, fmt.Errorf("plugins: definition: %w", err)
		}
	}
	if len(req.MrzJson) > 0 {
		var m idv.MRZData
		if err := json.Unmarshal(req.MrzJson, &m); err != nil {
			return nil, fmt.Errorf("plugins: mrz: %w", err)
		}
		cs.SetMRZ(&m)
	}
	if len(req.ParamsJson) > 0 {
		if err := json.Unmarshal(req.ParamsJson, &cs.Step.Params); err != nil {
			return nil, fmt.Errorf("plugins: params: %w", err)
		}
	}
	if len(req.MetadataJson) > 0 {
		if err := json.Unmarshal(req.MetadataJson, &cs.Metadata); err != nil {
			return nil, fmt.Errorf("plugins: metadata: %w", err)
		}
	}
	return cs, nil
}
