package plan_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func listed(id, name, env string, phase plan.Phase, tags ...string) plan.ProtectionPlan {
	return plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id},
		Spec:   plan.Spec{Name: name, Environment: env, Tags: tags, Description: "Freeze of " + name},
		Status: plan.Status{Phase: phase}}
}

func TestParseFilter(t *testing.T) {
	cases := map[string]struct {
		query     string
		want      plan.Filter
		wantField string
		wantText  string
	}{
		"no parameter keeps every plan": {query: ""},
		"every parameter, the text trimmed": {
			query: "phase=active&environment=production&tag=Baseline&text=+nightly+&page=2",
			want:  plan.Filter{Phase: plan.PhaseActive, Environment: "production", Tag: "Baseline", Text: "nightly"},
		},
		"an unknown phase is a 400 on phase": {
			query: "phase=frozen", wantField: "phase",
			wantText: `phase: Unsupported value: "frozen": unknown phase (known: pending_approval, scheduled, active, terminated, canceled, failed)`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			got, err := plan.ParseFilter(q)
			if tc.wantField == "" {
				if err != nil || got != tc.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			var ve *plan.ValidationError
			if !errors.As(err, &ve) || plan.CodeOf(err) != 400 || ve.Errs[0].Field != tc.wantField || err.Error() != tc.wantText {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestFilter_Select(t *testing.T) {
	all := func() []plan.ProtectionPlan {
		return []plan.ProtectionPlan{
			listed("q4", "q4 release", "Production", plan.PhasePendingApproval),
			listed("bf", "Black Friday", "production", plan.PhaseActive, "Baseline"),
			listed("nightly", "Nightly image freeze", "Staging", plan.PhaseActive, "baseline", "Security"),
			listed("audit", "October audit", "", plan.PhaseTerminated),
			listed("bf-2", "black friday", "Staging", plan.PhaseScheduled),
		}
	}
	cases := map[string]struct {
		filter plan.Filter
		want   []string
	}{
		"the zero filter keeps every plan, by display name ignoring case, then ID": {
			want: []string{"bf", "bf-2", "nightly", "audit", "q4"},
		},
		"an environment compares as category names do": {
			filter: plan.Filter{Environment: " PRODUCTION "}, want: []string{"bf", "q4"},
		},
		"a tag compares as category names do": {
			filter: plan.Filter{Tag: "BASELINE"}, want: []string{"bf", "nightly"},
		},
		"a phase": {filter: plan.Filter{Phase: plan.PhaseActive}, want: []string{"bf", "nightly"}},
		"text is looked for in the ID, the name and the description, ignoring case": {
			filter: plan.Filter{Text: "FRIDAY"}, want: []string{"bf", "bf-2"},
		},
		"text in the ID only": {filter: plan.Filter{Text: "q4"}, want: []string{"q4"}},
		"every field must match": {
			filter: plan.Filter{Phase: plan.PhaseActive, Environment: "staging", Tag: "security", Text: "image"}, want: []string{"nightly"},
		},
		"nothing matches": {filter: plan.Filter{Environment: "Development"}, want: []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := []string{}
			for _, p := range tc.filter.Select(all()) {
				got = append(got, p.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if tc.filter.IsZero() != (tc.filter == plan.Filter{}) {
				t.Error("IsZero")
			}
		})
	}
}

func TestNamesIn(t *testing.T) {
	names := plan.NamesIn([]plan.ProtectionPlan{listed("bf", "Black Friday", "", ""), listed("bf-2", "black friday ", "", ""), listed("q4", "Q4", "", "")})
	cases := map[string]struct {
		name string
		want []string
	}{
		"a name is found ignoring case and surrounding spaces": {name: " BLACK FRIDAY", want: []string{"bf", "bf-2"}},
		"a free name has no plan":                              {name: "Christmas"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := names.PlansNamed(tc.name)
			if err != nil || !cmp.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	cases := map[string]struct {
		name    string
		entropy []byte
		want    string
	}{
		"letters and digits in lower case, other runs as one dash": {name: "Black Friday: 2026!", entropy: []byte{0, 1, 2, 3, 4}, want: "black-friday-2026-abcde"},
		"the entropy wraps around the alphabet":                    {name: "x", entropy: []byte{35, 36, 255}, want: "x-9ad"},
		"a name without letters or digits becomes plan":            {name: "¡¿!", entropy: []byte{25}, want: "plan-z"},
		"a long name is cut to 40 characters, without a trailing dash": {
			name: "Freeze of the whole checkout and payments stack for Christmas", entropy: []byte{0},
			want: "freeze-of-the-whole-checkout-and-payment-a",
		},
		"a cut that ends on a dash drops it": {name: "abcdefghij abcdefghij abcdefghij abcdef ghij", entropy: []byte{0},
			want: "abcdefghij-abcdefghij-abcdefghij-abcdef-a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := plan.NewID(tc.name, tc.entropy); got != tc.want {
				t.Errorf("NewID = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPrepareCreate(t *testing.T) {
	cases := map[string]struct {
		id, wantID string
	}{
		"a plan sent without an ID is named from its display name": {wantID: "black-friday-aaaaa"},
		"a plan sent with an ID keeps it":                          {id: "bf", wantID: "bf"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := listed(tc.id, "Black Friday", "", plan.PhaseActive)
			p.ResourceVersion, p.UID, p.Generation = "12", "u-1", 3
			p.CreationTimestamp = metav1.Now()
			p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
			plan.PrepareCreate(&p, make([]byte, 5))
			if p.Name != tc.wantID || p.Status.Phase != "" || p.ResourceVersion != "" || p.UID != "" || p.Generation != 0 ||
				!p.CreationTimestamp.IsZero() || p.ManagedFields != nil || p.Spec.Name != "Black Friday" {
				t.Errorf("prepared: %+v", p)
			}
		})
	}
}
