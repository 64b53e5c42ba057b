package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tambua/tambua/server/webhook"
)

// The webhook JSON API (docs/webhooks.md): the console's webhook
// operations, for the API clients of an organisation. Workflow-scoped
// (SDK) tokens are refused: they are low-trust by design.

type webhookHandler func(w http.ResponseWriter, r *http.Request, org int64) *APIError

// mountWebhooks registers the webhook API. Several methods share a path,
// so the method-not-allowed answer is registered once per path at the end.
func (s *Server) mountWebhooks(svc *webhook.Service) {
	type route struct {
		method, path, name string
		h                  webhookHandler
	}
	h := webhookHTTP{svc: svc}
	routes := []route{
		{"POST", "/v1/webhooks", "webhooks_create", h.create},
		{"GET", "/v1/webhooks", "webhooks_list", h.list},
		{"GET", "/v1/webhooks/{id}", "webhooks_show", h.show},
		{"PATCH", "/v1/webhooks/{id}", "webhooks_edit", h.edit},
		{"DELETE", "/v1/webhooks/{id}", "webhooks_delete", h.delete},
		{"POST", "/v1/webhooks/{id}/activate", "webhooks_activate", h.status(svc.Activate)},
		{"POST", "/v1/webhooks/{id}/pause", "webhooks_pause", h.status(svc.Pause)},
		{"POST", "/v1/webhooks/{id}/resume", "webhooks_resume", h.status(svc.Resume)},
		{"POST", "/v1/webhooks/{id}/test", "webhooks_test", h.test},
		{"POST", "/v1/webhooks/{id}/validate-certificate", "webhooks_validate", h.validate},
		{"GET", "/v1/webhooks/{id}/logs", "webhooks_logs", h.logs},
		{"GET", "/v1/webhooks/{id}/stats", "webhooks_stats", h.stats},
	}
	api := make([]apiRoute, len(routes))
	for i, rt := range routes {
		api[i] = apiRoute{rt.method, rt.path, rt.name, s.withOrg(rt.h)}
	}
	s.mountAPI(api)
}

func (s *Server) withOrg(h webhookHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, aerr := s.authenticate(r)
		if aerr == nil && p.WorkflowID != "" {
			aerr = apiErr(CodeForbidden, "a workflow-scoped token cannot manage webhooks; use the client's access token")
		}
		if aerr == nil {
			aerr = h(w, r, p.OrganisationID)
		}
		if aerr != nil {
			if aerr.Code == CodeInternal {
				s.log.ErrorContext(r.Context(), "webhook api", "request_id", requestIDFrom(r.Context()), "error", aerr.Message)
				aerr = apiErr(CodeInternal, "internal error")
			}
			writeAPIError(w, aerr, requestIDFrom(r.Context()))
		}
	}
}

type webhookHTTP struct{ svc *webhook.Service }

// webhookErr maps the webhook service's errors to API errors.
func webhookErr(err error) *APIError {
	var ve *webhook.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, webhook.ErrNotFound):
		return apiErr(CodeNotFound, "no such webhook")
	case errors.As(err, &ve):
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(ve.Error(), "webhook: "))
	case errors.Is(err, webhook.ErrTransition):
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(err.Error(), "webhook: "))
	}
	return apiErr(CodeInternal, "%v", err)
}

func (h webhookHTTP) create(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	in, err := webhook.DecodeInput(r.Body)
	if err != nil {
		return webhookErr(err)
	}
	wh, err := h.svc.Create(r.Context(), org, in)
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusCreated, &wh)
	return nil
}

func (h webhookHTTP) list(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	ws, err := h.svc.List(r.Context(), org)
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"webhooks": ws})
	return nil
}

func (h webhookHTTP) show(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	wh, err := h.svc.Get(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, &wh)
	return nil
}

func (h webhookHTTP) edit(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	in, err := webhook.DecodeInput(r.Body)
	if err != nil {
		return webhookErr(err)
	}
	wh, err := h.svc.Update(r.Context(), org, r.PathValue("id"), in)
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, &wh)
	return nil
}

func (h webhookHTTP) delete(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	if err := h.svc.Delete(r.Context(), org, r.PathValue("id")); err != nil {
		return webhookErr(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h webhookHTTP) status(move func(ctx context.Context, org int64, id string) (webhook.Webhook, error)) webhookHandler {
	return func(w http.ResponseWriter, r *http.Request, org int64) *APIError {
		wh, err := move(r.Context(), org, r.PathValue("id"))
		if err != nil {
			return webhookErr(err)
		}
		writeJSON(w, http.StatusOK, &wh)
		return nil
	}
}

func (h webhookHTTP) test(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	var body struct {
		Event string `json:"event"`
	}
	if err := decodeStrict(r, &body); err != nil {
		return apiErr(CodeInvalidRequest, "body: %v", err)
	}
	res, err := h.svc.Test(r.Context(), org, r.PathValue("id"), body.Event)
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (h webhookHTTP) validate(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	rep, err := h.svc.ValidateCertificate(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

func (h webhookHTTP) logs(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	q := r.URL.Query()
	f, err := webhook.ParseLogFilter(q.Get("from"), q.Get("to"), q.Get("status"), q.Get("event"))
	if err != nil {
		return webhookErr(err)
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return apiErr(CodeInvalidRequest, "limit must be a positive integer")
		}
		f.Limit = n
	}
	entries, err := h.svc.Logs(r.Context(), org, r.PathValue("id"), f)
	if err != nil {
		return webhookErr(err)
	}
	switch q.Get("format") {
	case "", "json":
		writeJSON(w, http.StatusOK, map[string]any{"logs": entries})
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="webhook-`+r.PathValue("id")+`-logs.csv"`)
		_ = webhook.WriteCSV(w, entries)
	default:
		return apiErr(CodeInvalidRequest, "format must be json or csv")
	}
	return nil
}

func (h webhookHTTP) stats(w http.ResponseWriter, r *http.Request, org int64) *APIError {
	st, err := h.svc.Stats(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return webhookErr(err)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// decodeStrict reads a small JSON body, refusing unknown fields.
func decodeStrict(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
