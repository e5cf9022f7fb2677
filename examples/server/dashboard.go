package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// The dashboard is server-rendered html/template (every user text is
// escaped by it) with one style sheet and no script: filters are GET
// forms, actions are POST forms carrying a token tied to the user
// (formToken), on top of the cross-origin protection of every write.

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var pages = parsePages()

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"when":    formatWhen,
		"phase":   overview.PhaseLabel,
		"join":    strings.Join,
		"lower":   strings.ToLower,
		"eventOf": overview.EventLabel,
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"plans", "plan", "error"} {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

func serveStatic(w http.ResponseWriter, r *http.Request) {
	sub, _ := fs.Sub(staticFS, "static")
	w.Header().Set("Cache-Control", "max-age=300")
	http.StripPrefix("/static/", http.FileServerFS(sub)).ServeHTTP(w, r)
}

// base is what every page shows: who is signed in and a message.
type base struct {
	Title  string
	User   string
	Roles  string
	Notice string
	Error  string
	Token  string
}

func (s *Server) baseFor(r *http.Request, title string) base {
	c := callerOf(r)
	var roles []string
	for _, role := range c.Roles {
		roles = append(roles, role.Name)
	}
	return base{Title: title, User: c.Username, Roles: strings.Join(roles, ", "), Token: s.formToken(c.Username),
		Notice: overview.Notice(overview.Done(r.URL.Query().Get("done")))}
}

func (s *Server) render(w http.ResponseWriter, code int, page string, data any) {
	var buf bytes.Buffer
	if err := pages[page].Execute(&buf, data); err != nil {
		s.Log.Error("dashboard template", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// dashboardError answers a page's error as a page, with its code.
func (s *Server) dashboardError(w http.ResponseWriter, r *http.Request, err error) {
	p := toProblem(err, s.Log)
	data := struct {
		base
		problem.Document
		Status string
	}{base: s.baseFor(r, http.StatusText(p.Code)), Document: p, Status: http.StatusText(p.Code)}
	setErrorHeaders(w, err, p.Code)
	s.render(w, p.Code, "error", data)
}

// formToken is the dashboard forms' CSRF token: an HMAC of the user under
// a key made at start. A page from another origin cannot read it; a
// request forged for another user does not match.
func (s *Server) formToken(user string) string {
	m := hmac.New(sha256.New, s.formKey)
	m.Write([]byte(user))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) checkForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &plan.TooLargeError{Limit: mbe.Limit}
		}
		return errorf(http.StatusBadRequest, "cannot read the form: %v", err)
	}
	want := s.formToken(callerOf(r).Username)
	if !hmac.Equal([]byte(r.PostFormValue("token")), []byte(want)) {
		return errorf(http.StatusForbidden, "the form's token is missing or stale; reload the page and try again")
	}
	return nil
}

// formatWhen is overview.At for the times templates hold.
func formatWhen(t any, now time.Time) overview.When {
	var tt time.Time
	switch v := t.(type) {
	case time.Time:
		tt = v
	case *time.Time:
		if v != nil {
			tt = *v
		}
	case metav1.Time:
		tt = v.Time
	case *metav1.Time:
		if v != nil {
			tt = v.Time
		}
	}
	return overview.At(tt, now)
}

// --- The list of plans ---

type plansPage struct {
	base
	Now          time.Time
	Filter       plan.Filter
	Phases       []plan.Phase
	Environments []string
	Tags         []string
	Rows         []overview.Row
	Total        int
	Filtered     bool
}

func (s *Server) pagePlans(w http.ResponseWriter, r *http.Request) {
	items, f, err := s.filteredPlans(r)
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	cats, _, err := s.loadCategories(r.Context())
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	data := plansPage{base: s.baseFor(r, "Protection plans"), Now: s.now(), Filter: f, Phases: plan.Phases(),
		Environments: cats.Names(plan.KindEnvironment), Tags: cats.Names(plan.KindTag), Total: len(items),
		Filtered: !f.IsZero()}
	for i := range items {
		data.Rows = append(data.Rows, overview.RowOf(&items[i]))
	}
	s.render(w, http.StatusOK, "plans", data)
}

// --- A plan's page ---

type planPage struct {
	base
	Now        time.Time
	Row        overview.Row
	Plan       *plan.ProtectionPlan
	Templates  []overview.TemplateRow
	Exclusions []string
	Timeline   []plan.TimelineEvent
	Approval   overview.Approval
	Offers     overview.Offers
	// BreakGlass is the grants in force (a banner) and waiting.
	BreakGlass overview.BreakGlass
	// Health is the refreshed health (?health=refresh), else nil.
	Health        *overview.HealthCheck
	Violations    *overview.Feed
	ViolationsErr string
	Cursor        string
	NextPage      string
	Reports       []reportView
}

func (s *Server) pagePlan(w http.ResponseWriter, r *http.Request) {
	ctx, caller, now := r.Context(), callerOf(r), s.now()
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(caller, approval.ActionGet, p)
	}
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	data := planPage{base: s.baseFor(r, p.Spec.Name), Now: now, Row: overview.RowOf(p), Plan: p,
		Templates: overview.Templates(p), Exclusions: overview.Exclusions(p), Timeline: overview.Timeline(p), BreakGlass: overview.BreakGlassOf(p, now),
		Approval: overview.ApprovalOf(p, caller, s.Roles.Candidates()), Offers: overview.OffersFor(caller, p, s.files != nil, now)}
	if data.Offers.Health && r.URL.Query().Get("health") == "refresh" {
		if hv, err := s.checkHealth(ctx, p); err == nil {
			data.Health = &hv
		} else {
			data.Error = "Health could not be refreshed: " + toProblem(err, s.Log).Message
		}
	}
	if data.Offers.Violations {
		s.fillViolations(ctx, r, p, &data)
	}
	if data.Offers.Reports {
		data.Reports, _ = s.storedReports(report.Filter{Plan: p.Name})
	}
	s.render(w, http.StatusOK, "plan", data)
}

func (s *Server) fillViolations(ctx context.Context, r *http.Request, p *plan.ProtectionPlan, data *planPage) {
	q, err := violations.ParseQuery(r.URL.Query(), p.Name)
	if err == nil {
		var fv overview.Feed
		if fv, err = s.feed(ctx, p, q); err == nil {
			data.Violations = &fv
			data.Cursor = q.Cursor
			if fv.NextCursor != "" {
				data.NextPage = "/plans/" + url.PathEscape(p.Name) + "?cursor=" + url.QueryEscape(fv.NextCursor) + "#violations"
			}
			return
		}
	}
	data.ViolationsErr = toProblem(err, s.Log).Message
}

// --- Forms ---

func (s *Server) formApprove(w http.ResponseWriter, r *http.Request) {
	s.formDecide(w, r, plan.DecisionApproved)
}

func (s *Server) formReject(w http.ResponseWriter, r *http.Request) {
	s.formDecide(w, r, plan.DecisionRejected)
}

func (s *Server) formDecide(w http.ResponseWriter, r *http.Request, d plan.Decision) {
	if err := s.checkForm(r); err != nil {
		s.dashboardError(w, r, err)
		return
	}
	gen, _ := strconv.ParseInt(r.PostFormValue("generation"), 10, 64)
	body := decisionRequest{RequestID: r.PostFormValue("requestID"), Comment: r.PostFormValue("comment"), Generation: gen}
	p, err := s.decide(r.Context(), callerOf(r), r.PathValue("id"), d, body)
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	done := overview.DoneApproved
	if d == plan.DecisionRejected {
		done = overview.DoneRejected
	}
	http.Redirect(w, r, "/plans/"+url.PathEscape(p.Name)+"?done="+string(done), http.StatusSeeOther)
}

func (s *Server) formCancel(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.dashboardError(w, r, err)
		return
	}
	p, err := s.transition(r, reconcile.Cancel)
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	http.Redirect(w, r, "/plans/"+url.PathEscape(p.Name)+"?done="+string(overview.DoneCanceled), http.StatusSeeOther)
}

func (s *Server) formGenerateReport(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.dashboardError(w, r, err)
		return
	}
	m, err := s.generate(r.Context(), r)
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	http.Redirect(w, r, "/plans/"+url.PathEscape(m.Plan)+"?done="+string(overview.DoneReport)+"#reports", http.StatusSeeOther)
}
