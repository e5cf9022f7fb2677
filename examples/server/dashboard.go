package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
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
		"phase":   phaseLabel,
		"join":    strings.Join,
		"lower":   strings.ToLower,
		"eventOf": eventLabel,
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
	b := base{Title: title, User: c.Username, Roles: strings.Join(roles, ", "), Token: s.formToken(c.Username)}
	if d := r.URL.Query().Get("done"); d != "" {
		b.Notice = doneNotice(d)
	}
	return b
}

func doneNotice(d string) string {
	switch d {
	case "approved":
		return "Approved. The plan follows its window now."
	case "rejected":
		return "Rejected. The plan is canceled."
	case "canceled":
		return "Canceled. Its policies are withdrawn on the operator's next tick."
	case "report":
		return "Report generated."
	}
	return ""
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
		Code    int
		Status  string
		Message string
		Errors  []fieldProblem
	}{base: s.baseFor(r, http.StatusText(p.Code)), Code: p.Code, Status: http.StatusText(p.Code), Message: p.Message, Errors: p.Errors}
	var busy *report.BusyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(busy.RetryAfterSeconds()))
	}
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

// planRow is a plan as the list and the plan page show it.
type planRow struct {
	ID, Name, Description string
	Phase                 plan.Phase
	Mode                  plan.Mode
	Approval              plan.ApprovalMode
	Environment           string
	Tags                  []string
	Window                string
	NextEdge              *time.Time
	Health, HealthClass   string
	HealthDetail          string
	Scope                 string
}

func rowOf(p *plan.ProtectionPlan) planRow {
	row := planRow{ID: p.Name, Name: p.Spec.Name, Description: p.Spec.Description, Phase: p.Status.Phase,
		Mode: p.Spec.Mode, Approval: p.Spec.ApprovalMode, Environment: p.Spec.Environment, Tags: p.Spec.Tags,
		Window: p.Status.Window}
	if p.Status.NextEdge != nil {
		t := p.Status.NextEdge.Time
		row.NextEdge = &t
	}
	switch sc := p.Spec.Scope; sc.Type() {
	case plan.ScopeApplications:
		row.Scope = "applications " + strings.Join(sc.Applications, ", ")
	case plan.ScopeNamespaces:
		row.Scope = "namespaces " + strings.Join(sc.Namespaces, ", ")
	}
	row.Health, row.HealthClass, row.HealthDetail = healthLabel(p)
	return row
}

// healthLabel reads the stored PoliciesHealthy condition (the operator's
// last check).
func healthLabel(p *plan.ProtectionPlan) (label, class, detail string) {
	var c *metav1.Condition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == plan.ConditionPoliciesHealthy {
			c = &p.Status.Conditions[i]
		}
	}
	switch {
	case c == nil || c.Status == metav1.ConditionUnknown:
		return "Not checked", "muted", "health has not been checked yet"
	case c.Status == metav1.ConditionTrue && c.Reason == "InPlace":
		return "Healthy", "ok", c.Message
	case c.Status == metav1.ConditionTrue:
		return "Nothing deployed", "muted", c.Message
	}
	return splitCamel(c.Reason), "bad", c.Message
}

// splitCamel writes "PoliciesMissing" as "Policies missing".
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// whenView is an instant as pages show it: UTC, and how far from now.
type whenView struct {
	Abs, Rel string
	ISO      string
}

func formatWhen(t any, now time.Time) whenView {
	var tt time.Time
	switch v := t.(type) {
	case time.Time:
		tt = v
	case *time.Time:
		if v == nil {
			return whenView{}
		}
		tt = *v
	case metav1.Time:
		tt = v.Time
	case *metav1.Time:
		if v == nil {
			return whenView{}
		}
		tt = v.Time
	}
	if tt.IsZero() {
		return whenView{}
	}
	return whenView{Abs: tt.UTC().Format("Mon 2 Jan 2006 15:04 UTC"), Rel: relative(tt, now), ISO: tt.UTC().Format(time.RFC3339)}
}

func relative(t, now time.Time) string {
	d := t.Sub(now)
	past := d < 0
	if past {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		s = fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
	if past {
		return s + " ago"
	}
	return "in " + s
}

func phaseLabel(p plan.Phase) string {
	if p == plan.PhasePendingApproval {
		return "pending approval"
	}
	return string(p)
}

func eventLabel(t plan.EventType) string {
	switch t {
	case plan.EventApprovalRequired:
		return "Approval requested"
	case plan.EventPhaseChanged:
		return "Phase changed"
	case plan.EventHealthChanged:
		return "Health changed"
	}
	return string(t)
}

// --- The list of plans ---

type plansPage struct {
	base
	Now          time.Time
	Filter       planFilter
	Phases       []plan.Phase
	Environments []string
	Tags         []string
	Rows         []planRow
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
	data := plansPage{base: s.baseFor(r, "Protection plans"), Now: s.now(), Filter: f, Phases: phases,
		Environments: cats.Names(plan.KindEnvironment), Tags: cats.Names(plan.KindTag), Total: len(items),
		Filtered: f != (planFilter{})}
	for i := range items {
		data.Rows = append(data.Rows, rowOf(&items[i]))
	}
	s.render(w, http.StatusOK, "plans", data)
}

// --- A plan's page ---

type templateRow struct {
	Name, Title, Params string
}

type planPage struct {
	base
	Now        time.Time
	Row        planRow
	Plan       *plan.ProtectionPlan
	Templates  []templateRow
	Exclusions []string
	Timeline   []plan.TimelineEvent
	Approval   approvalView
	CanCancel  bool
	// Health is the refreshed health (?health=refresh), else nil.
	Health        *healthView
	CanHealth     bool
	Violations    *feedView
	ViolationsErr string
	Cursor        string
	NextPage      string
	Reports       []reportView
	CanReports    bool
	CanGenerate   bool
	GenerateWhy   string
}

func (s *Server) pagePlan(w http.ResponseWriter, r *http.Request) {
	ctx, caller := r.Context(), callerOf(r)
	p, err := s.readPlan(ctx, r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(caller, approval.ActionGet, p)
	}
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	data := planPage{base: s.baseFor(r, p.Spec.Name), Now: s.now(), Row: rowOf(p), Plan: p,
		Approval: s.approvalOf(p, caller), Exclusions: exclusionLines(p.Spec.Exclusions)}
	for _, t := range p.Spec.Templates {
		data.Templates = append(data.Templates, templateRowOf(t))
	}
	data.Timeline = slices.Clone(p.Status.Timeline)
	slices.Reverse(data.Timeline)
	switch p.Status.Phase {
	case plan.PhaseActive, plan.PhaseScheduled, plan.PhasePendingApproval, plan.PhaseFailed:
		data.CanCancel = approval.Check(caller, approval.ActionCancel, p).Allowed
	}
	data.CanHealth = approval.Check(caller, approval.ActionHealth, p).Allowed
	if data.CanHealth && r.URL.Query().Get("health") == "refresh" {
		if hv, err := s.checkHealth(ctx, p); err == nil {
			data.Health = &hv
		} else {
			data.Error = "Health could not be refreshed: " + toProblem(err, s.Log).Message
		}
	}
	if approval.Check(caller, approval.ActionViolations, p).Allowed {
		s.fillViolations(ctx, r, p, &data)
	}
	if data.CanReports = approval.Check(caller, approval.ActionReports, p).Allowed; data.CanReports {
		data.Reports, _ = s.storedReports(report.Filter{Plan: p.Name})
		var ns *report.NotStartedError
		if err := report.CheckManual(p); errors.As(err, &ns) {
			data.GenerateWhy = ns.Reason
		} else if s.files == nil {
			data.GenerateWhy = "this server keeps no reports"
		} else {
			data.CanGenerate = true
		}
	}
	s.render(w, http.StatusOK, "plan", data)
}

func (s *Server) fillViolations(ctx context.Context, r *http.Request, p *plan.ProtectionPlan, data *planPage) {
	q, err := parseFeedQuery(r, p.Name)
	if err == nil {
		var fv feedView
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

func templateRowOf(t plan.TemplateRef) templateRow {
	row := templateRow{Name: t.Name}
	if tpl, ok := render.Lookup(t.Name); ok {
		row.Title = tpl.Info().Title
	}
	var params []string
	for k, v := range t.Parameters {
		params = append(params, k+"="+v)
	}
	slices.Sort(params)
	row.Params = strings.Join(params, ", ")
	return row
}

func exclusionLines(e plan.Exclusions) []string {
	var out []string
	if len(e.Kinds) > 0 {
		out = append(out, "kinds: "+strings.Join(e.Kinds, ", "))
	}
	for _, res := range e.Resources {
		out = append(out, res.Kind+" "+res.Namespace+"/"+res.Name)
	}
	return out
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
	http.Redirect(w, r, "/plans/"+url.PathEscape(p.Name)+"?done="+string(d), http.StatusSeeOther)
}

func (s *Server) formCancel(w http.ResponseWriter, r *http.Request) {
	if err := s.checkForm(r); err != nil {
		s.dashboardError(w, r, err)
		return
	}
	p, err := s.transition(r.Context(), r, approval.ActionCancel, plan.Cancel)
	if err != nil {
		s.dashboardError(w, r, err)
		return
	}
	http.Redirect(w, r, "/plans/"+url.PathEscape(p.Name)+"?done=canceled", http.StatusSeeOther)
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
	http.Redirect(w, r, "/plans/"+url.PathEscape(m.Plan)+"?done=report#reports", http.StatusSeeOther)
}
