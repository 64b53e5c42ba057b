package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// Hand-off from a desktop to a phone (docs/sdk.md, "Continue on a
// phone"). A page running the web SDK on a computer without a camera asks
// for a hand-off with its session's access token; it shows the answer's
// URL as a QR code. The phone opens /handoff on this server, whose page
// redeems the token in the URL's fragment once for a session of its own,
// bound to the hand-off, and runs the workflow. The desktop polls for the
// result with its own access token and the hand-off token.
//
// No state is kept beyond what exists: the hand-off token is signed (so
// replicas sharing keys all accept it), its single use is a never-refilled
// bucket of one (shared by replicas on one database, as the session
// limits are), and the phone's verification is stored under a request_id
// derived from the hand-off, which is where the desktop finds it.

// Methods of the auth_config menu for hand-offs.
const (
	MethodCreateHandoff = "createHandoff"
	MethodRedeemHandoff = "redeemHandoff"
	MethodHandoffStatus = "getHandoffStatus"
)

// HandoffTTL is how long a hand-off code may be redeemed: enough to find
// a phone and scan it, short enough that a photographed screen is soon
// worthless. The phone's session then lasts SDKSessionTTL.
const HandoffTTL = 10 * time.Minute

// handoffsPerSession bounds the codes one desktop session may create: a
// holder who lets a code expire asks for another, a few times at most.
const handoffsPerSession = 5

// tokenHandoff is the typ claim of hand-off tokens.
const tokenHandoff = "handoff"

// handoffRequestPrefix makes the request_id of a hand-off's verification.
const handoffRequestPrefix = "handoff-"

// handoffResponse is the answer of createHandoff.
type handoffResponse struct {
	HandoffToken string `json:"handoff_token"`
	HandoffURL   string `json:"handoff_url"`
	QRCode       string `json:"qr_code"` // one pixel per module: the page scales it by a whole number
	ExpiresIn    int    `json:"expires_in"`
}

// handoffStatusResponse is the answer of getHandoffStatus.
type handoffStatusResponse struct {
	State     string          `json:"state"`
	ExpiresIn int             `json:"expires_in"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// createHandoff is auth_config/createHandoff: an SDK session (the
// desktop's) asks for a hand-off code of its workflow.
func (s *Server) createHandoff(ctx context.Context, p *Principal, env *envelope) (any, *APIError) {
	if p.Session == "" || p.WorkflowID == "" {
		return nil, apiErr(CodeForbidden, "createHandoff needs the access token of an SDK session")
	}
	if p.Handoff != "" {
		return nil, apiErr(CodeForbidden, "a session opened by a hand-off cannot hand off again")
	}
	wf, aerr := s.visibleWorkflow(ctx, p, p.WorkflowID)
	if aerr != nil {
		return nil, aerr
	}
	config := env.str("config")
	if config != "" && !contains(wf.Definition.DocumentTypes, config) {
		return nil, apiErr(CodeUnknownConfig, "config %q is not among the workflow's document types %v", truncate(config, 64), wf.Definition.DocumentTypes)
	}
	if ok, retry := s.sessions.handoffs.allow("ses:" + p.Session); !ok {
		e := apiErr(CodeRateLimited, "this SDK session has created its %d hand-off codes; start a new session", handoffsPerSession)
		e.RetryAfter = retry
		return nil, e
	}
	now := s.tokens.now()
	tok, err := s.tokens.sign(Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: p.ClientID, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(HandoffTTL))},
		Type:             tokenHandoff, Org: p.OrganisationID, Workflow: wf.ID, Session: p.Session, Gen: tokenGen(wf.RefreshToken), Config: config,
	})
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	// The token travels in the fragment: browsers never send it to a
	// server, so it stays out of access logs and Referer headers.
	link := s.cfg.BaseURL + "/handoff#" + tok
	qr, err := qrPNG(link)
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	return handoffResponse{HandoffToken: tok, HandoffURL: link, QRCode: qr, ExpiresIn: int(HandoffTTL.Seconds())}, nil
}

// redeemHandoff is auth_config/redeemHandoff: the phone's page exchanges
// the hand-off token, once, for an SDK token of a session bound to it.
func (s *Server) redeemHandoff(ctx context.Context, r *http.Request, env *envelope) (any, *APIError) {
	raw := env.str("handoff_token")
	if raw == "" {
		return nil, apiErr(CodeInvalidRequest, "handoff_token is required")
	}
	addr := s.callerAddr(r)
	if ok, retry := s.ipLimiter.open("ip:" + addr); !ok {
		e := apiErr(CodeRateLimited, "too many token requests from this address; retry later")
		e.RetryAfter = retry
		return nil, e
	}
	refuse := func() *APIError {
		s.ipLimiter.charge("ip:" + addr)
		return apiErr(CodeUnauthorized, "this hand-off code is invalid or has expired; show a new one on the computer")
	}
	// The hand-off's id is the token's own (jti): the QR code stays small.
	c, err := s.tokens.parse(raw, tokenHandoff)
	if err != nil || c.ID == "" || c.Session == "" {
		return nil, refuse()
	}
	wf, err := s.store.Workflow(ctx, c.Workflow)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, apiErr(CodeInternal, "internal error")
	}
	if err != nil || wf.Status != "active" || wf.ClientID != c.Subject || wf.OrganisationID != c.Org || c.Gen != tokenGen(wf.RefreshToken) {
		return nil, refuse()
	}
	cl, err := s.store.Client(ctx, c.Subject)
	if err != nil || !cl.Active || cl.OrganisationID != c.Org {
		return nil, refuse()
	}
	if ok, _ := s.sessions.handoffUsed.allow("ho:" + c.ID); !ok {
		return nil, apiErr(CodeUnauthorized, "this hand-off code has been used; show a new one on the computer")
	}
	return s.mintSession(ctx, wf, c.Config, SDKSessionTTL, c.ID)
}

// getHandoffStatus is auth_config/getHandoffStatus: the desktop session
// that created a hand-off asks how far the phone has got, and receives
// the result when the verification has run. It reads the token's claims
// past its expiry (the phone's session outlives the code); the token must
// still be one this server signed, for the caller's own session.
func (s *Server) getHandoffStatus(ctx context.Context, p *Principal, env *envelope) (any, *APIError) {
	raw := env.str("handoff_token")
	if raw == "" {
		return nil, apiErr(CodeInvalidRequest, "handoff_token is required")
	}
	c, err := s.tokens.parseSigned(raw, tokenHandoff)
	if err != nil || c.ID == "" || c.ExpiresAt == nil {
		return nil, apiErr(CodeUnauthorized, "%s", errToken)
	}
	if p.Session == "" || p.Session != c.Session || p.ClientID != c.Subject || p.OrganisationID != c.Org || p.WorkflowID != c.Workflow {
		return nil, apiErr(CodeForbidden, "this hand-off belongs to another session")
	}
	now := s.tokens.now()
	out := handoffStatusResponse{ExpiresIn: max(0, int(c.ExpiresAt.Sub(now).Seconds()))}
	v, err := s.store.Verification(ctx, c.Subject, handoffRequestPrefix+c.ID)
	switch {
	case err == nil && v.WorkflowID == c.Workflow:
		out.State = "completed"
		out.Result = s.storedResult(v)
	case err == nil:
		// Cannot happen: the request_id is the hand-off's own.
		return nil, apiErr(CodeInternal, "internal error")
	case errors.Is(err, ErrPending):
		out.State = "running"
	case errors.Is(err, ErrNotFound):
		if unused, _ := s.sessions.handoffUsed.open("ho:" + c.ID); !unused {
			out.State = "opened"
		} else if now.After(c.ExpiresAt.Time) {
			out.State = "expired"
		} else {
			out.State = "waiting"
		}
	default:
		return nil, apiErr(CodeInternal, "internal error")
	}
	return out, nil
}

// storedResult is a stored verification's response body with its file
// URLs signed afresh.
func (s *Server) storedResult(v Verification) []byte {
	out := []byte(v.Result)
	for url, key := range v.Files {
		out = bytes.ReplaceAll(out, []byte(url), []byte(s.FileURL(key)))
	}
	return out
}

// parseSigned checks a token's algorithm, signature, issuer and type but
// not its times: for reading the claims of a token this server issued
// after its lifetime, where the caller's own credentials are what count.
func (t tokens) parseSigned(raw, typ string) (*Claims, error) {
	var c Claims
	tok, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return t.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithoutClaimsValidation())
	if err != nil || !tok.Valid || c.Issuer != issuer || c.Type != typ || c.Subject == "" || c.Org <= 0 {
		return nil, errToken
	}
	return &c, nil
}

// qrPNG renders text as a QR code (error correction M, which survives a
// phone camera's glare on a screen) in a PNG data URL, one pixel per
// module with the 4-module quiet zone: the page scales it up by a whole
// number of pixels, so every module stays square and sharp.
func qrPNG(text string) (string, error) {
	hints := map[gozxing.EncodeHintType]any{gozxing.EncodeHintType_ERROR_CORRECTION: "M", gozxing.EncodeHintType_MARGIN: 4}
	bm, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 1, 1, hints)
	if err != nil {
		return "", err
	}
	n := bm.GetWidth()
	img := image.NewGray(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			v := uint8(255)
			if bm.Get(x, y) {
				v = 0
			}
			img.SetGray(x, y, color.Gray{Y: v})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()), nil
}
