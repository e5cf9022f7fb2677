package policytest_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/policytest"
)

const auditShop = `
apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata: {name: shop-audit}
spec:
  name: Shop audit
  scope: {namespaces: [shop]}
  templates: [{name: delete}, {name: create}]
  window: {type: time_range, startAt: "2026-12-24T18:00:00Z", endAt: "2026-12-27T06:00:00Z"}
  mode: audit
`

const head = "apiVersion: cli.telark.io/v1alpha1\nkind: Test\n"

const deleteWeb = "{operation: DELETE, kind: Deployment, namespace: shop, name: web, user: alice}"

func files(test string) fstest.MapFS {
	return fstest.MapFS{
		"plans/shop.yaml":         {Data: []byte(shopFreeze)},
		"plans/audit.yaml":        {Data: []byte(auditShop)},
		"plans/both.yaml":         {Data: []byte(shopFreeze + "---\n" + auditShop)},
		"requests/delete.yaml":    {Data: []byte(deleteWeb)},
		"tests/t_test.yaml":       {Data: []byte(test)},
		"tests/notes.yaml":        {Data: []byte("not a test")},
		"tests/deeper/x_test.yml": {Data: []byte(head + "plans: [../../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n")},
	}
}

// TestLoad_Refused: every mistake of a test file is refused with its
// field, all at once, and nothing is run.
func TestLoad_Refused(t *testing.T) {
	cases := map[string]struct {
		file   string
		fields []string
	}{
		"the wrong apiVersion and kind": {
			file:   "apiVersion: v1\nkind: Pod\nplans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"apiVersion", "kind"},
		},
		"no plans and no cases": {file: head, fields: []string{"plans", "cases"}},
		"an absolute path and a missing file": {
			file:   head + "plans: [/etc/shop.yaml, ../plans/none.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"plans[0]", "plans[1]", "plans"},
		},
		"two plans of the same name": {
			file:   head + "plans: [../plans/shop.yaml, ../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"plans"},
		},
		"cluster and clusterFile both": {
			file:   head + "plans: [../plans/shop.yaml]\nclusterFile: c.yaml\ncluster: {namespaces: [shop]}\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"clusterFile"},
		},
		"a case without name, instant or request, with an unknown decision": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{expect: {decision: frozen}}]\n",
			fields: []string{"cases[0].at", "cases[0].request", "cases[0].name", "cases[0].expect.decision"},
		},
		"an instant that is not one and a request without a user": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: tomorrow, request: {operation: DELETE, kind: Deployment, namespace: shop, name: web}, expect: {decision: blocked}}]\n",
			fields: []string{"cases[0].at", "cases[0].request.user"},
		},
		"request and requestFile both": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", requestFile: ../requests/delete.yaml, expect: {decision: blocked}}]\n",
			fields: []string{"cases[0].requestFile"},
		},
		"a message that is not a regular expression": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked, message: 'a(b'}}]\n",
			fields: []string{"cases[0].expect.message"},
		},
		"an admitted case that names a template": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: admitted, template: delete}}]\n",
			fields: []string{"cases[0].expect.decision"},
		},
		"two cases of the same name": {
			file:   head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}, {name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"cases[1].name"},
		},
		"an unknown target, and a case target the suite does not run": {
			file:   head + "plans: [../plans/shop.yaml]\ntargets: [kyverno, opa]\ncases: [{name: n, at: 2026-12-25, targets: [vap], request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"targets[1]", "cases[0].targets[0]"},
		},
		"an unknown layout": {
			file:   head + "plans: [../plans/shop.yaml]\nlayouts: [tiny]\ncases: [{name: n, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n",
			fields: []string{"layouts[0]"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := policytest.Load(files(tc.file), "tests/t_test.yaml")
			var le *policytest.LoadError
			if !errors.As(err, &le) || le.File != "tests/t_test.yaml" {
				t.Fatalf("err = %v, want a *LoadError of the file", err)
			}
			if plan.CodeOf(err) != http.StatusBadRequest && plan.CodeOf(err) != http.StatusConflict {
				t.Errorf("code %d", plan.CodeOf(err))
			}
			var got []string
			for _, p := range plan.ProblemsOf(err) {
				got = append(got, p.Field)
			}
			if !slices.Equal(got, tc.fields) {
				t.Errorf("fields %q, want %q\n%v", got, tc.fields, err)
			}
		})
	}
}

func TestLoad_UnknownField(t *testing.T) {
	_, err := policytest.Load(files(head+"plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, request: "+deleteWeb+", expect: {decison: blocked}}]\n"), "tests/t_test.yaml")
	if err == nil || !strings.Contains(err.Error(), "cases[0].expect.decison: unknown field") {
		t.Fatalf("err = %v", err)
	}
}

// TestLoadDir: a directory's test files at any depth, in order; other
// files are left alone; a directory without any is an error.
func TestLoadDir(t *testing.T) {
	fsys := files(head + "plans: [../plans/shop.yaml]\ncases: [{name: n, at: 2026-12-25, requestFile: ../requests/delete.yaml, expect: {decision: blocked}}]\n")
	suites, err := policytest.LoadDir(fsys, "tests")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range suites {
		names = append(names, s.File)
	}
	if want := []string{"tests/deeper/x_test.yml", "tests/t_test.yaml"}; !slices.Equal(names, want) {
		t.Errorf("loaded %q, want %q", names, want)
	}
	if _, err := policytest.LoadDir(fsys, "plans"); err == nil || !strings.Contains(err.Error(), "no test file") {
		t.Errorf("a directory without tests: %v", err)
	}
}

// TestRun_Decisions: the request's decision is the strongest of the
// plans', and plan, template and message are checked against a plan
// that decided so.
func TestRun_Decisions(t *testing.T) {
	cases := map[string]struct {
		expect  string
		failure string // "" when the check passes on every target
	}{
		"blocked wins over audited":                                           {expect: "{decision: blocked, plan: shop-freeze, template: delete}"},
		"the audited plan is not the decision":                                {expect: "{decision: audited}", failure: "want audited, got blocked"},
		"a plan that does not decide so is not the one named":                 {expect: "{decision: blocked, plan: shop-audit}", failure: "want blocked by plan shop-audit, got blocked"},
		"the message matches the deciding plan's, unanchored":                 {expect: "{decision: blocked, message: 'frozen by protection plan Shop freeze'}"},
		"a message of the audited plan does not match a block":                {expect: "{decision: blocked, message: '^would be blocked'}", failure: "want blocked with a message matching \"^would be blocked\", got blocked"},
		"warned is false for a refusal, though the audited plan warns on vap": {expect: "{decision: blocked, warned: false}"},
		"warned true is refused for a refusal":                                {expect: "{decision: blocked, warned: true}", failure: "want warned: true, got warned: false"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := policytest.Load(files(head+"plans: [../plans/both.yaml]\ncluster: {namespaces: [shop]}\ncases: [{name: n, at: 2026-12-25, request: "+deleteWeb+", expect: "+tc.expect+"}]\n"), "tests/t_test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Checks) != 3 {
				t.Fatalf("%d checks, want one per target", len(res.Checks))
			}
			for _, c := range res.Checks {
				if !strings.HasPrefix(c.Failure, tc.failure) || (tc.failure == "") != c.Passed() {
					t.Errorf("[%s] failure %q, want %q", c.Target, c.Failure, tc.failure)
				}
				if len(c.Got.Plans) != 2 || c.Got.Plans[0].Verdict() != "blocked" || c.Got.Plans[1].Verdict() != "audited" {
					t.Errorf("[%s] plans %+v", c.Target, c.Got.Plans)
				}
			}
		})
	}
}

// TestRun_AuditWarnsOnVAPOnly: an audited request answers a warning on
// vap ([Audit, Warn]) and none on the Kyverno targets.
func TestRun_AuditWarnsOnVAPOnly(t *testing.T) {
	s, err := policytest.Load(files(head+"plans: [../plans/audit.yaml]\ncluster: {namespaces: [shop]}\ncases: [{name: n, at: 2026-12-25, request: "+deleteWeb+", expect: {decision: audited}}]\n"), "tests/t_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		if want := c.Target == "vap"; c.Got.Warned != want || !c.Passed() {
			t.Errorf("[%s] warned %t, want %t; %s", c.Target, c.Got.Warned, want, c.Failure)
		}
	}
}

// TestRun_PlanOfApplicationsNeedsACluster: a suite that cannot run says
// which case and plan, with the library's error.
func TestRun_PlanOfApplicationsNeedsACluster(t *testing.T) {
	app := strings.Replace(shopFreeze, "scope: {namespaces: [shop]}", "scope: {applications: [web]}", 1)
	fsys := files(head + "plans: [../plans/app.yaml]\ncases: [{name: a delete, at: 2026-12-25, request: " + deleteWeb + ", expect: {decision: blocked}}]\n")
	fsys["plans/app.yaml"] = &fstest.MapFile{Data: []byte(app)}
	s, err := policytest.Load(fsys, "tests/t_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run()
	var re *policytest.RunError
	if !errors.As(err, &re) || re.Plan != "shop-freeze" || re.Field != "cases[0]" {
		t.Fatalf("err = %v, want a *RunError of cases[0] and the plan", err)
	}
}
