package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SDK sessions give a browser or an app the workflow-scoped SDK token
// (the spec's SDK JWT) without any secret reaching it. Two ways in, one
// kind of token (docs/sdk.md has the threat model):
//
//   - auth_config/issueSdkToken, public: a page on an origin listed in
//     the workflow's web_sdk_configs.allowed_origins asks with client_id
//     and work_flow_id, as the spec initialises the web SDK;
//   - auth_config/generateSdkToken, with the client's access token: the
//     customer's backend mints one for its app or page.
//
// The SDK token carries, as refresh_token, a session refresh token: it
// expires (SDKSessionTTL), is bound to the workflow's current refresh
// token (rotating or archiving the workflow ends every session), and its
// access tokens may start at most SDKSessionVerifications verifications.
// The workflow's own refresh token never leaves the server this way.

// Methods of the auth_config menu that mint SDK tokens.
const (
	MethodIssueSDKToken    = "issueSdkToken"
	MethodGenerateSDKToken = "generateSdkToken"
)

// SDKSessionTTL is the lifetime of a session minted for a browser: a
// holder takes a few minutes to photograph a card and a face; half an
// hour leaves room for a slow network and a retake or two.
const SDKSessionTTL = 30 * time.Minute

// MaxSDKSessionTTL bounds what a backend may ask for with ttl_seconds.
const MaxSDKSessionTTL = 24 * time.Hour

// SDKSessionVerifications is how many verifications one session may start.
// One is what a holder needs; a second covers a submission the server
// refused before it ran (code 230, no worker free). A repeat with the same
// request_id (the SDK's retry after a dropped connection) replays the
// stored result and starts nothing, so it does not count.
const SDKSessionVerifications = 2

// Issue limits of issueSdkToken. Chosen so that a holder, who needs one
// session per attempt, and a household or office behind one address
// never meet them, while a script on one address gets 10 sessions, then
// one a minute; and so that one workflow's sessions across all addresses
// grow by at most one a second after a burst of 120 (a busy onboarding
// day is a few thousand). Every session's verifications are paid from the
// organisation's units, which remain the final cap.
const (
	sessionAddrBurst   = 10
	sessionAddrPerSec  = 1.0 / 60
	sessionFlowBurst   = 120
	sessionFlowPerSec  = 1.0
	sessionNeverRefill = 1e-9
)

// sdkSessions holds the session limits: issue rates and the verifications
// each session has started. Its memory is bounded by the limiters'.
type sdkSessions struct {
	perAddr *limiter // issueSdkToken per workflow and caller address
	perFlow *limiter // issueSdkToken per workflow
	uses    *limiter // verifications per session, never refilled
	// handoffs counts the hand-off codes a session creates; handoffUsed
	// holds one token per hand-off, taken when it is redeemed. Neither
	// refills.
	handoffs    *limiter
	handoffUsed *limiter
}

func newSDKSessions(now func() time.Time) *sdkSessions {
	return &sdkSessions{
		perAddr: newLimiter(sessionAddrPerSec, sessionAddrBurst, now),
		perFlow: newLimiter(sessionFlowPerSec, sessionFlowBurst, now),
		uses:    newLimiter(sessionNeverRefill, SDKSessionVerifications, now),
		// An evicted key (after 65,536 others in its shard, see limiter)
		// gets a full bucket again; a hand-off code is worth redeeming for
		// HandoffTTL only, far less than such churn takes at the issue
		// limits.
		handoffs:    newLimiter(sessionNeverRefill, handoffsPerSession, now),
		handoffUsed: newLimiter(sessionNeverRefill, 1, now),
	}
}

// use counts one verification against the caller's session, if it has
// one: it refuses the third with 429.
func (ss *sdkSessions) use(p *Principal) *APIError {
	if p == nil || p.Session == "" {
		return nil
	}
	if ok, _ := ss.uses.allow("ses:" + p.Session); !ok {
		return apiErr(CodeRateLimited, "this SDK session has started its %d verifications; start a new session", SDKSessionVerifications)
	}
	return nil
}

// tokenGen is the fingerprint of a workflow refresh token that sessions
// carry in their gen claim.
func tokenGen(workflowRefresh string) string {
	h := sha256.Sum256([]byte(workflowRefresh))
	return base64.RawURLEncoding.EncodeToString(h[:16])
}

// workflowRefreshOK reports whether a parsed refresh token may refresh
// for its workflow: the workflow's stored token itself, or a session
// issued under it that has a lifetime.
func workflowRefreshOK(wf Workflow, raw string, c *Claims) bool {
	if c.Session == "" {
		return subtle.ConstantTimeCompare([]byte(raw), []byte(wf.RefreshToken)) == 1
	}
	return c.ExpiresAt != nil && subtle.ConstantTimeCompare([]byte(c.Gen), []byte(tokenGen(wf.RefreshToken))) == 1
}

// sessionAccess mints the access token a refresh gives, and its lifetime
// in seconds: an hour, or less for a session, whose access tokens end
// with it.
func (s *Server) sessionAccess(c *Claims) (string, int, error) {
	if c.Session == "" {
		tok, err := s.tokens.access(c.Subject, c.Org, c.Workflow)
		return tok, int(AccessTokenTTL.Seconds()), err
	}
	now := s.tokens.now()
	exp := now.Add(AccessTokenTTL)
	if c.ExpiresAt.Before(exp) {
		exp = c.ExpiresAt.Time
	}
	tok, err := s.tokens.sign(Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: c.Subject, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)},
		Type:             tokenAccess, Org: c.Org, Workflow: c.Workflow, Session: c.Session, Gen: c.Gen, Handoff: c.Handoff,
	})
	return tok, int(exp.Sub(now).Seconds()), err
}

// sdkTokenResponse is the answer of both minting methods.
type sdkTokenResponse struct {
	SDKToken   string `json:"sdk_token"`
	TokenType  string `json:"token_type"`
	ExpiresIn  int    `json:"expires_in"`
	WorkflowID string `json:"work_flow_id"`
}

// issueSDKToken is auth_config/issueSdkToken: no credentials, the page's
// Origin instead, checked against the workflow's allowed origins.
func (s *Server) issueSDKToken(ctx context.Context, r *http.Request, env *envelope) (any, *APIError) {
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return nil, apiErr(CodeForbidden, "issueSdkToken is for web pages, whose Origin must be among the workflow's web_sdk_configs.allowed_origins; a backend mints with generateSdkToken")
	}
	clientID, flowID := env.str("client_id"), env.str("work_flow_id")
	if !validID(clientID, 64) || !validID(flowID, 64) {
		return nil, apiErr(CodeInvalidRequest, "client_id and work_flow_id are required")
	}
	addr := s.callerAddr(r)
	limited := func(retry int) *APIError {
		e := apiErr(CodeRateLimited, "too many SDK sessions for this workflow; retry later")
		e.RetryAfter = retry
		return e
	}
	// The address's bucket of the token endpoints first: it bounds the
	// store reads an anonymous caller can cause.
	if ok, retry := s.ipLimiter.open("ip:" + addr); !ok {
		return nil, limited(retry)
	}
	wf, err := s.store.Workflow(ctx, flowID)
	if err != nil || wf.ClientID != clientID || wf.Status != "active" {
		s.ipLimiter.charge("ip:" + addr)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, apiErr(CodeInternal, "internal error")
		}
		return nil, apiErr(CodeNotFound, "unknown workflow %q for this client", truncate(flowID, 64))
	}
	if !originAllowed(wf, origin) {
		s.ipLimiter.charge("ip:" + addr)
		return nil, apiErr(CodeForbidden, "origin %q is not among the workflow's web_sdk_configs.allowed_origins", truncate(origin, 255))
	}
	if ok, retry := s.sessions.perAddr.allow("wf:" + wf.ID + "|" + addr); !ok {
		return nil, limited(retry)
	}
	if ok, retry := s.sessions.perFlow.allow("wf:" + wf.ID); !ok {
		return nil, limited(retry)
	}
	cl, err := s.store.Client(ctx, clientID)
	if err != nil || !cl.Active {
		return nil, apiErr(CodeNotFound, "unknown workflow %q for this client", truncate(flowID, 64))
	}
	return s.mintSession(ctx, wf, env.str("config"), SDKSessionTTL, "")
}

// generateSDKToken is auth_config/generateSdkToken: the client's backend,
// with its access token, mints an SDK token for one of its workflows.
func (s *Server) generateSDKToken(ctx context.Context, p *Principal, env *envelope) (any, *APIError) {
	if p.WorkflowID != "" {
		return nil, apiErr(CodeForbidden, "a workflow-scoped token cannot mint SDK tokens: use the client's own access token")
	}
	id := env.str("work_flow_id")
	if id == "" {
		return nil, apiErr(CodeInvalidRequest, "work_flow_id is required")
	}
	ttl := SDKSessionTTL
	if _, sent := env.Fields["ttl_seconds"]; sent {
		n, ok := env.int("ttl_seconds")
		if !ok || n < 60 || time.Duration(n)*time.Second > MaxSDKSessionTTL {
			return nil, apiErr(CodeInvalidRequest, "ttl_seconds must be an integer from 60 to %d", int(MaxSDKSessionTTL.Seconds()))
		}
		ttl = time.Duration(n) * time.Second
	}
	wf, aerr := s.visibleWorkflow(ctx, p, id)
	if aerr != nil {
		return nil, aerr
	}
	return s.mintSession(ctx, wf, env.str("config"), ttl, "")
}

// mintSession checks the organisation can pay for one verification of the
// workflow and returns a new session's SDK token; handoff, when set,
// binds the session to the hand-off that opened it.
func (s *Server) mintSession(ctx context.Context, wf Workflow, config string, ttl time.Duration, handoff string) (any, *APIError) {
	if config != "" && !contains(wf.Definition.DocumentTypes, config) {
		return nil, apiErr(CodeUnknownConfig, "config %q is not among the workflow's document types %v", truncate(config, 64), wf.Definition.DocumentTypes)
	}
	org, err := s.store.Organisation(ctx, wf.OrganisationID)
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	if cost := int64(wf.Definition.Cost()); org.Balance < cost {
		return nil, apiErr(CodeInsufficientUnits, "the organisation's balance (%d units) does not cover one verification of this workflow (%d units)", org.Balance, cost)
	}
	now := s.tokens.now()
	exp := now.Add(ttl)
	refresh, err := s.tokens.sign(Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: wf.ClientID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)},
		Type:             tokenRefresh, Org: wf.OrganisationID, Workflow: wf.ID,
		Session: randomToken(12), Gen: tokenGen(wf.RefreshToken), Handoff: handoff,
	})
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	sdk, err := signMap(s.keys.Token, map[string]any{
		"workflowId":     wf.ID,
		"clientId":       wf.ClientID,
		"organisationId": wf.OrganisationID,
		"apiUrl":         s.cfg.BaseURL + "/postdata",
		"refresh_token":  refresh,
		"config":         config,
		"iat":            now.Unix(),
		"exp":            exp.Unix(),
	})
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	return sdkTokenResponse{SDKToken: sdk, TokenType: "SDK", ExpiresIn: int(ttl.Seconds()), WorkflowID: wf.ID}, nil
}

// originAllowed reports whether origin is among the workflow's web SDK
// allowed origins, compared without case and a trailing slash.
func originAllowed(wf Workflow, origin string) bool {
	web := wf.Definition.WebSDK
	if web == nil {
		return false
	}
	for _, o := range web.AllowedOrigins {
		if strings.EqualFold(strings.TrimRight(o, "/"), origin) {
			return true
		}
	}
	return false
}
