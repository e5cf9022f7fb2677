package plan_test

import (
	"net/url"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func named(id, name string) plan.ProtectionPlan {
	return plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id}, Spec: plan.Spec{Name: name}}
}

func ids(ps []plan.ProtectionPlan) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// pages walks every page of all with limit, returning the IDs in order.
func pages(t *testing.T, all []plan.ProtectionPlan, limit string, between func(int, []plan.ProtectionPlan) []plan.ProtectionPlan) []string {
	t.Helper()
	var got []string
	q := url.Values{"limit": {limit}}
	for i := 0; ; i++ {
		r, err := plan.ParsePage(q)
		if err != nil {
			t.Fatal(err)
		}
		pg := r.Of(all)
		got = append(got, ids(pg.Items)...)
		if pg.Continue == "" {
			if pg.Remaining != 0 {
				t.Errorf("last page with %d remaining", pg.Remaining)
			}
			return got
		}
		if i > len(all)+1 {
			t.Fatal("no end")
		}
		q.Set("continue", pg.Continue)
		if between != nil {
			all = between(i, all)
		}
	}
}

func TestPage(t *testing.T) {
	all := []plan.ProtectionPlan{named("b", "alpha"), named("a", "Beta"), named("c", "beta"), named("d", "Gamma"), named("e", "delta")}
	plan.SortByName(all)
	order := ids(all)
	cases := map[string]struct {
		limit   string
		between func(int, []plan.ProtectionPlan) []plan.ProtectionPlan
		want    []string
	}{
		"pages of two walk the whole list once, in order, equal names by ID": {limit: "2", want: order},
		"a limit as large as the list answers it in one page":                {limit: "5", want: order},
		"a limit over the maximum is lowered, not refused":                   {limit: "100000", want: order},
		"a plan deleted between two pages hides no other": {limit: "2", want: []string{"b", "a", "c", "d"},
			between: func(i int, ps []plan.ProtectionPlan) []plan.ProtectionPlan {
				if i == 0 {
					return slices.DeleteFunc(slices.Clone(ps), func(p plan.ProtectionPlan) bool { return p.Name == "e" })
				}
				return ps
			}},
		"a plan created before the position between two pages repeats no other": {limit: "2", want: order,
			between: func(i int, ps []plan.ProtectionPlan) []plan.ProtectionPlan {
				if i == 0 {
					ps = append(slices.Clone(ps), named("z", "Aardvark"))
					plan.SortByName(ps)
				}
				return ps
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := pages(t, slices.Clone(all), c.limit, c.between); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	t.Run("the first page counts what remains", func(t *testing.T) {
		r, _ := plan.ParsePage(url.Values{"limit": {"2"}})
		if pg := r.Of(all); pg.Remaining != 3 || pg.Continue == "" {
			t.Errorf("remaining %d continue %q", pg.Remaining, pg.Continue)
		}
	})
	t.Run("no limit answers everything without a token", func(t *testing.T) {
		if pg := (plan.PageRequest{}).Of(all); len(pg.Items) != 5 || pg.Continue != "" {
			t.Errorf("%v %q", ids(pg.Items), pg.Continue)
		}
	})
}

func TestParsePage_Refused(t *testing.T) {
	cases := map[string]struct {
		q     url.Values
		field string
	}{
		"a limit of zero":              {q: url.Values{"limit": {"0"}}, field: "limit"},
		"a negative limit":             {q: url.Values{"limit": {"-3"}}, field: "limit"},
		"a limit that is not a number": {q: url.Values{"limit": {"ten"}}, field: "limit"},
		"a token that is not base64":   {q: url.Values{"continue": {"%%%"}}, field: "continue"},
		"a token of another shape":     {q: url.Values{"continue": {"e30"}}, field: "continue"}, // {}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := plan.ParsePage(c.q)
			ps := plan.ProblemsOf(err)
			if plan.CodeOf(err) != 400 || len(ps) != 1 || ps[0].Field != c.field {
				t.Errorf("err %v problems %+v", err, ps)
			}
		})
	}
}

func TestFormatOfMediaType(t *testing.T) {
	cases := map[string]struct {
		ct   string
		want plan.Format
		code int
	}{
		"JSON":                       {ct: "application/json", want: plan.FormatJSON},
		"JSON with a charset":        {ct: "application/json; charset=utf-8", want: plan.FormatJSON},
		"a +json type":               {ct: "application/merge-patch+json", want: plan.FormatJSON},
		"YAML":                       {ct: "application/yaml", want: plan.FormatYAML},
		"YAML under its older names": {ct: "text/yaml", want: plan.FormatYAML},
		"a form is refused":          {ct: "application/x-www-form-urlencoded", code: 415},
		"plain text is refused":      {ct: "text/plain", code: 415},
		"no Content-Type is refused": {ct: "", code: 415},
		"a header that does not parse is refused": {ct: "application/json; =", code: 415},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := plan.FormatOfMediaType(c.ct)
			if c.code != 0 {
				if plan.CodeOf(err) != c.code {
					t.Errorf("err %v, code %d", err, plan.CodeOf(err))
				}
				return
			}
			if err != nil || f != c.want {
				t.Errorf("%q: %v", f, err)
			}
		})
	}
}
