package main

import (
	"context"
	"errors"
	"io/fs"
	"net/http"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
)

// reportView is a stored report in a list: its meta and where to download
// it in each format.
type reportView struct {
	report.Meta
	Final     bool              `json:"final"`
	Downloads map[string]string `json:"downloads"`
}

func viewOf(m report.Meta) reportView {
	v := reportView{Meta: m, Final: m.Trigger.Final(), Downloads: map[string]string{}}
	for _, f := range report.Formats() {
		v.Downloads[string(f)] = "/api/v1/plans/" + m.Plan + "/reports/" + m.ID + "?format=" + string(f)
	}
	return v
}

type reportList struct {
	Items []reportView `json:"items"`
}

// storedReports lists the reports that pass f, newest first.
func (s *Server) storedReports(f report.Filter) ([]reportView, error) {
	out := []reportView{}
	if s.files == nil {
		return out, nil
	}
	metas, err := s.files.ListReports(f.Plan)
	if err != nil {
		return nil, &internalError{err}
	}
	for _, m := range report.List(metas, f) {
		out = append(out, viewOf(m))
	}
	return out, nil
}

func (s *Server) listReports(w http.ResponseWriter, r *http.Request) {
	f, err := report.ParseFilter(r.URL.Query())
	s.writeReports(w, r, f, err)
}

func (s *Server) listPlanReports(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionReports, p)
	}
	var f report.Filter
	if err == nil {
		f, err = report.ParseFilter(r.URL.Query())
		f.Plan = p.Name
	}
	s.writeReports(w, r, f, err)
}

// writeReports answers with the stored reports f selects, or with err
// when reading the request failed.
func (s *Server) writeReports(w http.ResponseWriter, r *http.Request, f report.Filter, err error) {
	var items []reportView
	if err == nil {
		items, err = s.storedReports(f)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, reportList{Items: items})
}

func (s *Server) generateReport(w http.ResponseWriter, r *http.Request) {
	m, err := s.generate(r.Context(), r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v := viewOf(m)
	w.Header().Set("Location", v.Downloads[string(report.JSON)])
	writeJSON(w, http.StatusCreated, v)
}

// generate makes an on-demand report (R-T3) once the plan has started:
// at most two renders at a time (the limiter answers 429 with
// Retry-After), then retention (R-T4) after the write.
func (s *Server) generate(ctx context.Context, r *http.Request) (report.Meta, error) {
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err != nil {
		return report.Meta{}, err
	}
	if err := approval.Authorize(callerOf(r), approval.ActionReports, p); err != nil {
		return report.Meta{}, err
	}
	if s.files == nil {
		return report.Meta{}, errorf(http.StatusConflict, "this server keeps no reports (no --reports-dir)")
	}
	if err := report.CheckManual(p); err != nil {
		return report.Meta{}, err // before waiting for the limiter
	}
	release, err := s.Limiter.Acquire()
	if err != nil {
		return report.Meta{}, err
	}
	defer release()
	in, err := s.reportInput(ctx, p)
	if err != nil {
		return report.Meta{}, err
	}
	rep, err := reconcile.ManualReport(in)
	if err != nil {
		return report.Meta{}, err
	}
	if _, err := s.files.WriteReport(rep); err != nil {
		return report.Meta{}, &internalError{err}
	}
	// Retention (R-T4): the plan's on-demand reports beyond the newest
	// report.KeepManual go; final reports stay.
	if _, err := s.files.PruneReports(p.Name); err != nil {
		return report.Meta{}, &internalError{err}
	}
	return rep.Meta(), nil
}

// reportInput gathers a report's input: the plan, its resolved
// applications, its live policies, its ledger as of now and the health
// samples the operator recorded.
func (s *Server) reportInput(ctx context.Context, p *plan.ProtectionPlan) (reconcile.ManualInput, error) {
	apps, err := s.resolveApplications(ctx, p)
	if err != nil {
		return reconcile.ManualInput{}, err
	}
	ledger, _, live, err := s.currentLedger(ctx, p)
	if err != nil {
		return reconcile.ManualInput{}, err
	}
	samples, err := s.files.LoadSamples(p.Name)
	if err != nil {
		s.Log.Warn("the plan's health samples cannot be read", "plan", p.Name, "err", err)
	}
	return reconcile.ManualInput{Plan: p, Applications: apps, Live: live, Ledger: ledger, Samples: samples, Now: s.now()}, nil
}

func (s *Server) downloadReport(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionReports, p)
	}
	f := report.JSON
	if err == nil && r.URL.Query().Get("format") != "" {
		f, err = report.ParseFormat(r.URL.Query().Get("format"))
	}
	var m report.Meta
	if err == nil {
		m, err = s.findReport(p.Name, r.PathValue("report"))
	}
	var data []byte
	if err == nil {
		data, err = s.files.ReadReport(m.Plan, m.ID, f)
		if errors.Is(err, fs.ErrNotExist) {
			err = errorf(http.StatusNotFound, "report %q has no %s file (yet)", m.ID, f)
		} else if err != nil {
			err = &internalError{err}
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	disposition := "attachment"
	if f == report.HTML && r.URL.Query().Get("download") == "" {
		disposition = "inline"
	}
	w.Header().Set("Content-Type", f.ContentType())
	w.Header().Set("Content-Disposition", disposition+`; filename="`+report.FileName(m.ID, f)+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The HTML report is self-contained (no script, no external asset).
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	w.Write(data)
}

// findReport looks the report up among the plan's stored reports: an ID
// is never used as a path before it is found there.
func (s *Server) findReport(planID, id string) (report.Meta, error) {
	items, err := s.storedReports(report.Filter{Plan: planID})
	if err != nil {
		return report.Meta{}, err
	}
	for _, it := range items {
		if it.ID == id {
			return it.Meta, nil
		}
	}
	return report.Meta{}, errorf(http.StatusNotFound, "plan %q has no report %q", planID, id)
}
