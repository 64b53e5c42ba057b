package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// tokenResponse is the body of a successful token exchange.
type tokenResponse struct {
	AccessToken    string `json:"access_token"`
	TokenType      string `json:"token_type"`
	ExpiresIn      int    `json:"expires_in"`
	RefreshToken   string `json:"refresh_token,omitempty"`
	OrganisationID int64  `json:"organisation_id,omitempty"`
	WorkflowID     string `json:"work_flow_id,omitempty"`
}

// oauthError is the RFC 6749 section 5.2 error body.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// handleOAuthToken is POST /oauth/token: the client credentials grant, with
// credentials in the form or in HTTP Basic (RFC 6749 section 2.3.1).
func (s *Server) handleOAuthToken(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code, desc string) {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="tambua"`)
		}
		writeJSON(w, status, oauthError{Error: code, Description: desc})
	}
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/x-www-form-urlencoded") {
		fail(http.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "invalid_request", "the form could not be parsed")
		return
	}
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if bid, bsecret, ok := r.BasicAuth(); ok {
		if id != "" && id != bid {
			fail(http.StatusBadRequest, "invalid_request", "client_id in the form and in Authorization differ")
			return
		}
		id, secret = bid, bsecret
	}
	if gt := r.PostForm.Get("grant_type"); gt != "client_credentials" {
		if gt == "" {
			fail(http.StatusBadRequest, "invalid_request", "grant_type is required")
		} else {
			fail(http.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
		}
		return
	}
	if id == "" || secret == "" {
		fail(http.StatusBadRequest, "invalid_request", "client_id and client_secret are required")
		return
	}
	addr := s.callerAddr(r)
	if ok, retry := s.secretGate(addr, id); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		fail(http.StatusTooManyRequests, "temporarily_unavailable", "too many failed token requests for this client from this address; retry later")
		return
	}
	c, err := s.clientCredentials(r.Context(), id, secret)
	if err != nil {
		if errors.Is(err, errBadCredentials) {
			s.secretFailed(addr, id)
			fail(http.StatusUnauthorized, "invalid_client", "client authentication failed")
		} else {
			fail(http.StatusInternalServerError, "server_error", "")
		}
		return
	}
	tok, err := s.tokens.access(c.ID, c.OrganisationID, "")
	if err != nil {
		fail(http.StatusInternalServerError, "server_error", "")
		return
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int(AccessTokenTTL.Seconds())})
}

var errBadCredentials = errors.New("client authentication failed")

// clientCredentials checks a client id and secret. Unknown, inactive and
// wrong-secret clients are one error, found in comparable time.
func (s *Server) clientCredentials(ctx context.Context, id, secret string) (Client, error) {
	// Each argon2id check takes 19 MiB: bound how many run at once.
	select {
	case s.hashing <- struct{}{}:
		defer func() { <-s.hashing }()
	case <-ctx.Done():
		return Client{}, ctx.Err()
	}
	c, err := s.store.Client(ctx, id)
	if errors.Is(err, ErrNotFound) {
		CheckSecret(dummyHash, secret)
		return Client{}, errBadCredentials
	}
	if err != nil {
		return Client{}, err
	}
	if !CheckSecret(c.SecretHash, secret) || !c.Active {
		return Client{}, errBadCredentials
	}
	return c, nil
}

// generateAccessToken is auth_config/generateAccessToken.
func (s *Server) generateAccessToken(ctx context.Context, r *http.Request, env *envelope) (any, *APIError) {
	id, secret := env.str("client_id"), env.str("client_secret")
	if id == "" || secret == "" {
		return nil, apiErr(CodeInvalidRequest, "client_id and client_secret are required")
	}
	addr := s.callerAddr(r)
	if ok, retry := s.secretGate(addr, id); !ok {
		e := apiErr(CodeRateLimited, "too many failed token requests for this client from this address; retry later")
		e.RetryAfter = retry
		return nil, e
	}
	c, err := s.clientCredentials(ctx, id, secret)
	if err != nil {
		if errors.Is(err, errBadCredentials) {
			s.secretFailed(addr, id)
			return nil, apiErr(CodeUnauthorized, "invalid client credentials")
		}
		return nil, apiErr(CodeInternal, "internal error")
	}
	access, err1 := s.tokens.access(c.ID, c.OrganisationID, "")
	refresh, err2 := s.tokens.clientRefresh(c.ID, c.OrganisationID)
	if err1 != nil || err2 != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	return tokenResponse{AccessToken: access, RefreshToken: refresh, TokenType: "Bearer",
		ExpiresIn: int(AccessTokenTTL.Seconds()), OrganisationID: c.OrganisationID}, nil
}

// refreshAccessToken is auth_config/refreshAccessToken: a refresh token
// (a workflow's, or one from generateAccessToken) and organisation_id give
// a new access token. A workflow's token is accepted only while it is the
// one stored with an Active workflow, and mints tokens scoped to that
// workflow.
func (s *Server) refreshAccessToken(ctx context.Context, r *http.Request, env *envelope) (any, *APIError) {
	raw := env.str("refresh_token")
	if raw == "" {
		return nil, apiErr(CodeInvalidRequest, "refresh_token is required")
	}
	// The SDK also sends the organisation id (the spec does not name the
	// field): organisation_id, or organisationId as its JWT calls it. It is
	// optional, since a backend refreshes with the refresh token alone, but
	// when sent it must be an integer and must match the token.
	orgField := "organisation_id"
	if _, ok := env.Fields[orgField]; !ok {
		orgField = "organisationId"
	}
	org, orgOK := int64(0), true
	if _, sent := env.Fields[orgField]; sent {
		if org, orgOK = env.int(orgField); !orgOK {
			return nil, apiErr(CodeInvalidRequest, "%s must be an integer", orgField)
		}
	}
	addr := s.callerAddr(r)
	limited := func(retry int) *APIError {
		e := apiErr(CodeRateLimited, "too many token requests from this address; retry later")
		e.RetryAfter = retry
		return e
	}
	if ok, retry := s.ipLimiter.open("ip:" + addr); !ok {
		return nil, limited(retry)
	}
	c, err := s.tokens.parse(raw, tokenRefresh)
	if err != nil {
		s.ipLimiter.charge("ip:" + addr)
		return nil, apiErr(CodeUnauthorized, "%s", err)
	}
	// Every device of a workflow refreshes with the same token: one
	// bucket per workflow and caller address, so that many devices
	// starting at once, or one misbehaving, do not lock out the others
	// nor the client's backend.
	scope := "client:" + c.Subject
	if c.Workflow != "" {
		scope = "wf:" + c.Workflow
	}
	if ok, retry := s.refreshLimiter.allow(scope + "|" + addr); !ok {
		return nil, limited(retry)
	}
	if org != 0 && c.Org != org {
		return nil, apiErr(CodeUnauthorized, "the refresh token does not belong to organisation %d", org)
	}
	cl, err := s.store.Client(ctx, c.Subject)
	if err != nil || !cl.Active || cl.OrganisationID != c.Org {
		s.ipLimiter.charge("ip:" + addr)
		return nil, apiErr(CodeUnauthorized, "%s", errToken)
	}
	if c.Workflow != "" {
		wf, err := s.store.Workflow(ctx, c.Workflow)
		if err != nil || !workflowRefreshOK(wf, raw, c) || wf.ClientID != c.Subject {
			s.ipLimiter.charge("ip:" + addr)
			return nil, apiErr(CodeUnauthorized, "%s", errToken)
		}
		if wf.Status != "active" {
			return nil, apiErr(CodeUnauthorized, "the workflow of this refresh token is not active")
		}
	}
	access, ttl, err := s.sessionAccess(c)
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	return tokenResponse{AccessToken: access, RefreshToken: raw, TokenType: "Bearer",
		ExpiresIn: ttl, OrganisationID: c.Org, WorkflowID: c.Workflow}, nil
}

// secretGate applies the limits of the secret-checking token endpoints
// (/oauth/token, generateAccessToken) before the secret is checked. Only
// failures are charged (secretFailed), to the caller's address and to the
// pair of client and address: a backend that knows its secret is never
// slowed, and failures from one address (someone who knows a client_id
// and guesses) never lock the client out at another address. Client
// secrets are 256 random bits, so the limits protect the server's CPU
// (argon2id) rather than the secret.
func (s *Server) secretGate(addr, clientID string) (bool, int) {
	if ok, retry := s.ipLimiter.open("ip:" + addr); !ok {
		return false, retry
	}
	return s.limiter.open("client:" + clientID + "|" + addr)
}

func (s *Server) secretFailed(addr, clientID string) {
	s.ipLimiter.charge("ip:" + addr)
	s.limiter.charge("client:" + clientID + "|" + addr)
}

// ipFactor is how many times the per-client token rate one address gets.
const ipFactor = 5
