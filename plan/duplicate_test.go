package plan

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestDuplicate(t *testing.T) {
	src := inPhase(t, PhaseActive, ApprovalRequired)
	src.Labels = map[string]string{"team": "shop"}
	src.Spec.Environment = EnvironmentProduction
	before := src.DeepCopy()

	cp, err := Duplicate(src, "holiday-2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, src); diff != "" {
		t.Errorf("Duplicate changed its source:\n%s", diff)
	}
	wantSpec := *src.Spec.DeepCopy()
	wantSpec.Name, wantSpec.ApprovalMode = "Copy of Holiday freeze", ""
	if diff := cmp.Diff(wantSpec, cp.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if cp.Name != "holiday-2" || cp.Labels["team"] != "shop" || cp.Annotations[DuplicatedFromAnnotation] != "holiday" {
		t.Errorf("metadata = %+v", cp.ObjectMeta)
	}
	if !cmp.Equal(cp.Status, Status{}) {
		t.Errorf("a copy has no status, got %+v", cp.Status)
	}
	if cp.APIVersion != "telark.io/v1alpha1" || cp.Kind != "ProtectionPlan" {
		t.Errorf("type = %s %s", cp.APIVersion, cp.Kind)
	}

	cp.Spec.ApprovalMode = ApprovalRequired // as the approval package derives it in Production
	res, err := Create(cp, "frank", dec2)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Events[0].Message; got != "created as a copy of plan holiday: from 2026-12-24 17:00 to 2026-12-27 05:00 UTC" {
		t.Errorf("Created message = %q", got)
	}
}

func TestDuplicate_Names(t *testing.T) {
	cases := map[string]struct {
		name string
		opts []DuplicateOption
		want string
	}{
		"the copy is called Copy of <name>": {name: "Holiday", want: "Copy of Holiday"},
		"a long name is cut to 64 characters": {
			name: strings.Repeat("ü", 64),
			want: "Copy of " + strings.Repeat("ü", 56),
		},
		"the caller can choose the name": {name: "Holiday", opts: []DuplicateOption{WithDisplayName("Holiday 2027")}, want: "Holiday 2027"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := holiday()
			src.Spec.Name = tc.name
			cp, err := Duplicate(src, "copy", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if cp.Spec.Name != tc.want || utf8.RuneCountInString(cp.Spec.Name) > MaxNameLength {
				t.Errorf("name = %q, want %q", cp.Spec.Name, tc.want)
			}
		})
	}
}
