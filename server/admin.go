package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// Admin performs the console's operations on organisations, clients,
// workflows and units. The admin CLI uses it until the console exists.
type Admin struct {
	store  Store
	tokens tokens
	// Actor names who acts in the audit log ("admin-cli:<user>" for the
	// CLI, "console:<member id>" for the console); empty is "admin".
	Actor string
	// Address is the caller's address written to the audit log (the
	// console's requests); empty for the CLI.
	Address string
	// Steps, when set, also validates each step's parameters with the
	// check that runs it (idv.Engine.ValidateSteps) when a workflow is
	// created, edited or duplicated, so a workflow that could never be
	// prepared is refused then, not at every verification. The server
	// sets its engine here for the console.
	Steps interface{ ValidateSteps(*idv.Workflow) error }
}

// NewAdmin returns the administration operations over st, signing refresh
// tokens with keys.
func NewAdmin(st Store, keys Keys) *Admin {
	return &Admin{store: st, tokens: tokens{key: keys.Token, now: time.Now}}
}

// Workflow creation failures, worded as the spec words them.
var (
	ErrInvalidClientSecret = errors.New("Invalid client secret")
	ErrClientNotFound      = errors.New("Client not found")
	ErrClientInactive      = errors.New("Client inactive")
	// ErrWorkflowName: the client already has a workflow of that name.
	ErrWorkflowName = errors.New("a workflow of that name already exists for this client")
)

// CreateOrganisation adds an organisation.
func (a *Admin) CreateOrganisation(ctx context.Context, name string) (Organisation, error) {
	if name == "" || len(name) > 255 {
		return Organisation{}, idv.Errorf(idv.EInvalid, "organisation name must have 1 to 255 characters")
	}
	o, err := a.store.CreateOrganisation(ctx, name)
	if err != nil {
		return o, err
	}
	return o, a.audit(ctx, o.ID, "organisation.created", "organisation", fmt.Sprint(o.ID), name)
}

// CreateClient adds an active client to an organisation and returns it with
// its secret, which is shown this once and stored only as a hash.
func (a *Admin) CreateClient(ctx context.Context, orgID int64, name string) (Client, string, error) {
	if _, err := a.store.Organisation(ctx, orgID); err != nil {
		return Client{}, "", fmt.Errorf("organisation %d: %w", orgID, err)
	}
	secret := NewClientSecret()
	hash, err := HashSecret(secret)
	if err != nil {
		return Client{}, "", err
	}
	c := Client{ID: idv.NewRequestID(), OrganisationID: orgID, Name: name, SecretHash: hash, Active: true}
	if err := a.store.CreateClient(ctx, c); err != nil {
		return Client{}, "", err
	}
	return c, secret, a.audit(ctx, orgID, "client.created", "client", c.ID, name)
}

// SetClientActive activates or deactivates a client. An inactive client
// gets no tokens and cannot have workflows created for it.
func (a *Admin) SetClientActive(ctx context.Context, id string, active bool) (Client, error) {
	c, err := a.store.Client(ctx, id)
	if err != nil {
		return c, err
	}
	if err := a.store.SetClientActive(ctx, id, active); err != nil {
		return c, err
	}
	c.Active = active
	action := "client.deactivated"
	if active {
		action = "client.activated"
	}
	return c, a.audit(ctx, c.OrganisationID, action, "client", c.ID, "")
}

// ClientSecretSetter is the optional store ability to replace a client's
// secret hash (server/sqlite.DB has it).
type ClientSecretSetter interface {
	SetClientSecret(ctx context.Context, id, hash string) error
}

// RotateClientSecret gives a client a new secret, returned this once; the
// old one stops working at once (tokens already issued run to expiry).
func (a *Admin) RotateClientSecret(ctx context.Context, id string) (Client, string, error) {
	ss, ok := a.store.(ClientSecretSetter)
	if !ok {
		return Client{}, "", idv.Errorf(idv.EInvalid, "this store cannot rotate client secrets")
	}
	c, err := a.store.Client(ctx, id)
	if err != nil {
		return c, "", err
	}
	secret := NewClientSecret()
	if c.SecretHash, err = HashSecret(secret); err != nil {
		return Client{}, "", err
	}
	if err := ss.SetClientSecret(ctx, id, c.SecretHash); err != nil {
		return Client{}, "", err
	}
	return c, secret, a.audit(ctx, c.OrganisationID, "client.secret_rotated", "client", c.ID, "")
}

// AddUnits credits (or, negative, debits) an organisation's balance.
func (a *Admin) AddUnits(ctx context.Context, orgID, n int64) (int64, error) {
	bal, err := a.store.AddUnits(ctx, orgID, n, "admin")
	if err != nil {
		return bal, err
	}
	return bal, a.audit(ctx, orgID, "units.added", "organisation", fmt.Sprint(orgID), fmt.Sprint(n))
}

// CreateWorkflow validates the client secret against the client, validates
// the workflow, generates its refresh token and stores it. The secret is
// not stored with the workflow. A workflow without a status is Active.
func (a *Admin) CreateWorkflow(ctx context.Context, clientID, secret string, def idv.Workflow) (Workflow, error) {
	c, err := a.store.Client(ctx, clientID)
	if errors.Is(err, ErrNotFound) {
		return Workflow{}, ErrClientNotFound
	}
	if err != nil {
		return Workflow{}, err
	}
	if !CheckSecret(c.SecretHash, secret) {
		return Workflow{}, ErrInvalidClientSecret
	}
	if !c.Active {
		return Workflow{}, ErrClientInactive
	}
	if def.Status == "" {
		def.Status = idv.WorkflowActive
	}
	def.ID = ""
	if err := a.validate(&def); err != nil {
		return Workflow{}, err
	}
	w := Workflow{ID: idv.NewRequestID(), ClientID: c.ID, OrganisationID: c.OrganisationID, Status: def.Status, Definition: def}
	w.Definition.ID = w.ID
	if w.RefreshToken, err = a.tokens.workflowRefresh(c.ID, c.OrganisationID, w.ID, 0); err != nil {
		return Workflow{}, err
	}
	if err := a.store.CreateWorkflow(ctx, w, workflowEvent("workflow.created", w)); err != nil {
		if errors.Is(err, ErrConflict) {
			return Workflow{}, ErrWorkflowName
		}
		return Workflow{}, err
	}
	if err := a.audit(ctx, w.OrganisationID, "workflow.created", "workflow", w.ID, def.Name); err != nil {
		return Workflow{}, err
	}
	return a.store.Workflow(ctx, w.ID)
}

// EditWorkflow replaces the editable parts of a workflow: name,
// description, optional checks, thresholds, manual review, metadata,
// webhook and SDK settings. Document types and required checks (OCR
// extraction and any check marked required) cannot change. The edit takes
// effect for verifications that start after it.
func (a *Admin) EditWorkflow(ctx context.Context, id string, def idv.Workflow) (Workflow, error) {
	w, err := a.store.Workflow(ctx, id)
	if err != nil {
		return Workflow{}, err
	}
	if !reflect.DeepEqual(def.DocumentTypes, w.Definition.DocumentTypes) {
		return Workflow{}, idv.Errorf(idv.EInvalid, "document types cannot be changed after creation")
	}
	if !reflect.DeepEqual(requiredChecks(def), requiredChecks(w.Definition)) {
		return Workflow{}, idv.Errorf(idv.EInvalid, "required checks cannot be changed after creation (have %v)", requiredChecks(w.Definition))
	}
	def.ID = w.ID
	def.Status = w.Status
	if err := a.validate(&def); err != nil {
		return Workflow{}, err
	}
	w.Definition = def
	out, err := a.store.UpdateWorkflow(ctx, w, workflowEvent("workflow.updated", w))
	if errors.Is(err, ErrConflict) {
		return Workflow{}, ErrWorkflowName
	}
	if err != nil {
		return out, err
	}
	return out, a.audit(ctx, w.OrganisationID, "workflow.updated", "workflow", w.ID, def.Name)
}

// validate checks a workflow's fields and rules, then its steps'
// parameters when a.Steps is set.
func (a *Admin) validate(def *idv.Workflow) error {
	if err := def.Validate(); err != nil {
		return err
	}
	if a.Steps != nil {
		return a.Steps.ValidateSteps(def)
	}
	return nil
}

func requiredChecks(w idv.Workflow) []string {
	var out []string
	for _, s := range w.Steps() {
		if s.Required {
			out = append(out, s.Name)
		}
	}
	return out
}

// DuplicateWorkflow creates a new workflow pre-filled from an existing one,
// under a new name, with its own refresh token. The client secret is asked
// again, as at creation.
func (a *Admin) DuplicateWorkflow(ctx context.Context, id, secret, name string) (Workflow, error) {
	w, err := a.store.Workflow(ctx, id)
	if err != nil {
		return Workflow{}, err
	}
	def := w.Definition
	def.Name = name
	def.Status = w.Status
	return a.CreateWorkflow(ctx, w.ClientID, secret, def)
}

// SetWorkflowStatus archives or activates a workflow (or puts it in draft).
// Existing verification data are kept either way.
func (a *Admin) SetWorkflowStatus(ctx context.Context, id, status string) (Workflow, error) {
	switch status {
	case idv.WorkflowActive, idv.WorkflowArchived, idv.WorkflowDraft:
	default:
		return Workflow{}, idv.Errorf(idv.EInvalid, "status %q is not active, draft or archived", status)
	}
	w, err := a.store.Workflow(ctx, id)
	if err != nil {
		return Workflow{}, err
	}
	if w.Status == status {
		return w, nil
	}
	if w.Status == idv.WorkflowActive {
		// Leaving Active revokes the refresh token: re-activating must not
		// bring the old one back. The new token is stored first, so a
		// crash between the two writes leaves a rotated token, never an
		// archived workflow that still holds the old one.
		if _, err := a.RotateRefreshToken(ctx, id, 0); err != nil {
			return Workflow{}, err
		}
	}
	w.Status = status
	w.Definition.Status = status
	// Draft is neither: it hides the workflow like an archive does.
	ev := "workflow.deactivated"
	if status == idv.WorkflowActive {
		ev = "workflow.activated"
	}
	out, err := a.store.UpdateWorkflow(ctx, w, workflowEvent(ev, w))
	if err != nil {
		return out, err
	}
	return out, a.audit(ctx, w.OrganisationID, "workflow.status", "workflow", w.ID, status)
}

// RotateRefreshToken gives a workflow a new refresh token and returns the
// workflow with it; the old token stops working at once. ttl > 0 gives the
// new token that lifetime; zero, none. The SDK tokens minted afterwards
// (SDKToken) carry the new one.
func (a *Admin) RotateRefreshToken(ctx context.Context, id string, ttl time.Duration) (Workflow, error) {
	if ttl < 0 {
		return Workflow{}, idv.Errorf(idv.EInvalid, "the refresh token lifetime must not be negative")
	}
	w, err := a.store.Workflow(ctx, id)
	if err != nil {
		return Workflow{}, err
	}
	tok, err := a.tokens.workflowRefresh(w.ClientID, w.OrganisationID, w.ID, ttl)
	if err != nil {
		return Workflow{}, err
	}
	if err := a.store.SetWorkflowRefreshToken(ctx, w.ID, tok); err != nil {
		return Workflow{}, err
	}
	w.RefreshToken = tok
	return w, a.audit(ctx, w.OrganisationID, "workflow.token_rotated", "workflow", w.ID, "")
}

// audit writes one audit line for a change just made, when the store
// keeps an audit log. It runs after the change's own transaction: an
// error here means the change is made but not logged, and is returned so
// the operator sees it.
func (a *Admin) audit(ctx context.Context, org int64, action, typ, id, detail string) error {
	au, ok := a.store.(Audit)
	if !ok {
		return nil
	}
	actor := a.Actor
	if actor == "" {
		actor = "admin"
	}
	if err := au.AddAudit(ctx, AuditEntry{OrganisationID: org, Actor: actor, Action: action, ObjectType: typ, ObjectID: id, Detail: detail, Address: a.Address}); err != nil {
		return fmt.Errorf("%s done, but the audit log could not be written: %w", action, err)
	}
	return nil
}

// RefreshTokenExpiry returns when a refresh token's lifetime ends; ok is
// false for a token without one (or not a token). It reads the claims
// without checking the signature: it is for display.
func RefreshTokenExpiry(tok string) (at time.Time, ok bool) {
	var c Claims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil || c.ExpiresAt == nil {
		return time.Time{}, false
	}
	return c.ExpiresAt.Time, true
}

// workflowEvent is a workflow event, written by the store in the
// transaction of the change.
func workflowEvent(name string, w Workflow) Event {
	data, _ := json.Marshal(map[string]any{"workflow_id": w.ID, "workflow_name": w.Definition.Name, "client_id": w.ClientID, "status": w.Status})
	return Event{EventID: idv.NewRequestID(), Event: name, OrganisationID: w.OrganisationID, Data: data}
}

// SDKToken returns the JWT given to the SDK for a workflow, with the claims
// the spec lists. apiURL is the address of /postdata.
func (a *Admin) SDKToken(w Workflow, apiURL, config string, ttl time.Duration) (string, error) {
	now := a.tokens.now()
	claims := map[string]any{
		"workflowId":     w.ID,
		"clientId":       w.ClientID,
		"organisationId": w.OrganisationID,
		"apiUrl":         apiURL,
		"refresh_token":  w.RefreshToken,
		"config":         config,
		"iat":            now.Unix(),
		"exp":            now.Add(ttl).Unix(),
	}
	return signMap(a.tokens.key, claims)
}

// Demo is what EnsureDemo created.
type Demo struct {
	Organisation Organisation
	Client       Client
	Secret       string
	Workflow     Workflow
}

// EnsureDemo creates, when the store holds no organisation yet, a demo
// organisation with units, a client and an active workflow over the given
// document types and checks. It returns nil when the store was not empty.
func (a *Admin) EnsureDemo(ctx context.Context, units int64, docTypes, checks []string) (*Demo, error) {
	n, err := a.store.CountOrganisations(ctx)
	if err != nil || n > 0 {
		return nil, err
	}
	org, err := a.CreateOrganisation(ctx, "Demo organisation")
	if err != nil {
		return nil, err
	}
	if _, err := a.AddUnits(ctx, org.ID, units); err != nil {
		return nil, err
	}
	c, secret, err := a.CreateClient(ctx, org.ID, "demo")
	if err != nil {
		return nil, err
	}
	def := idv.Workflow{Name: "Demo workflow", Description: "Created on first start", DocumentTypes: docTypes}
	for _, ch := range checks {
		def.Checks = append(def.Checks, idv.CheckSpec{Name: ch, Required: ch == idv.CheckOCR})
	}
	w, err := a.CreateWorkflow(ctx, c.ID, secret, def)
	if err != nil {
		return nil, err
	}
	org, err = a.store.Organisation(ctx, org.ID)
	return &Demo{Organisation: org, Client: c, Secret: secret, Workflow: w}, err
}

// DemoDocumentTypes are the demo workflow's document types: a few, because
// OCR tries every document type a workflow allows, so each one added
// costs time on every verification.
func DemoDocumentTypes(defs idv.Definitions) []string {
	var out []string
	for _, c := range []string{"kenya_national_id", "ke_maisha_card", "ke_passport", "generic_passport"} {
		if _, ok := defs.Definition(c); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		// Custom definitions only (--docdefs): take them all.
		if all, ok := defs.(interface{ Configs() []string }); ok {
			out = all.Configs()
		}
	}
	return out
}

// DemoChecks are the checks of the demo workflow: OCR extraction and every
// other catalog check compiled into this build that needs nothing more
// than the document and a selfie. Sanctions screening is left out: it
// needs lists the operator installs (tambua lists update), and without
// them every demo verification would go to review.
func DemoChecks() []string {
	have := map[string]bool{}
	for _, n := range idv.Registered() {
		have[n] = true
	}
	out := []string{idv.CheckOCR}
	for _, ci := range idv.Catalog {
		switch ci.Name {
		case idv.CheckOCR, idv.CheckAddress, idv.CheckCustomWebhook, idv.CheckSanctions:
			continue
		}
		if have[ci.Name] {
			out = append(out, ci.Name)
		}
	}
	return out
}

// AllowDemoOrigin lets the server's own /demo page start SDK sessions
// for the demo workflow: its web_sdk_configs.allowed_origins gets the
// origin of the base URL (docs/sdk.md).
func (a *Admin) AllowDemoOrigin(ctx context.Context, w Workflow, baseURL string) (Workflow, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return w, err
	}
	def := w.Definition
	if def.WebSDK == nil {
		def.WebSDK = &idv.SDKConfig{}
	}
	def.WebSDK.AllowedOrigins = append(def.WebSDK.AllowedOrigins, u.Scheme+"://"+u.Host)
	return a.EditWorkflow(ctx, w.ID, def)
}

// ApproveAdminVerification records, after an instance operator looked at
// it, that an organisation admin's personal verification is accepted: the
// manual outcome of a verification that ended in review.
func (a *Admin) ApproveAdminVerification(ctx context.Context, orgID int64) (store.OrgProfile, error) {
	cs, ok := a.store.(store.Console)
	if !ok {
		return store.OrgProfile{}, idv.Errorf(idv.EInvalid, "this store keeps no console data")
	}
	p, err := cs.OrgProfile(ctx, orgID)
	if err != nil {
		return p, fmt.Errorf("organisation %d: %w", orgID, err)
	}
	if p.AdminVerificationDecision == "" {
		return p, idv.Errorf(idv.EInvalid, "the admin of organisation %d has not run a verification", orgID)
	}
	p.AdminVerificationDecision = "accept"
	if err := cs.PutOrgProfile(ctx, p); err != nil {
		return p, err
	}
	return p, a.audit(ctx, orgID, "organisation.admin_approved", "organisation", p.AdminVerificationID, "")
}
