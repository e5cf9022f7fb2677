package plan

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate_Requesters(t *testing.T) {
	exclude := func(set RequesterSet) func(*ProtectionPlan, *ValidationEnv) {
		return func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Requesters = &Requesters{Exclude: set} }
	}
	include := func(set RequesterSet) func(*ProtectionPlan, *ValidationEnv) {
		return func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Requesters = &Requesters{Include: set} }
	}
	many := make([]string, MaxRequesters+1)
	for i := range many {
		many[i] = fmt.Sprintf("user-%d", i)
	}
	runValidateCases(t, map[string]validateCase{
		"exempt users, groups and service accounts pass": {plan: nightly, code: 200, change: exclude(RequesterSet{
			Users:           []string{"alice@example.com", "O'Brien \"ops\" $x (y) || true"},
			Groups:          []string{"platform-oncall", "oidc:team.sre"},
			ServiceAccounts: []string{"ci:release-pipeline", "argocd:argocd-application-controller"},
		})},
		"a plan limited to a group, with an exempt user in it, passes (exclusions win)": {plan: nightly, code: 200,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Requesters = &Requesters{
					Include: RequesterSet{Groups: []string{"developers"}},
					Exclude: RequesterSet{Users: []string{"alice"}},
				}
			}},
		"requesters naming nobody pass": {plan: nightly, code: 200,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Requesters = &Requesters{} }},
		"an empty user name is refused": {plan: nightly, change: exclude(RequesterSet{Users: []string{""}}), code: 400,
			want: []fieldErr{{field.ErrorTypeRequired, "spec.requesters.exclude.users[0]", "a user needs a name"}}},
		"a group name with surrounding spaces is refused": {plan: nightly, change: include(RequesterSet{Groups: []string{" ops"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.include.groups[0]", "must not begin or end with spaces"}}},
		"a user name holding {{ is refused, as a plan name is": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{"x{{ request.object }}"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.users[0]", "must not contain {{ or }}"}}},
		"a user name holding $( is refused: Kyverno reads it as a reference, even in subjects": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{"x$(request.object)"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.users[0]", "must not contain $( (Kyverno reads $(...) as a reference)"}}},
		"a group name holding a line break is refused": {plan: nightly,
			change: exclude(RequesterSet{Groups: []string{"ops\nsystem:masters"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.groups[0]", "must be one line without control characters"}}},
		"a wildcard user is refused: Kyverno would match it as a pattern": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{"system:*"}, Groups: []string{"dev?"}}), code: 400,
			want: []fieldErr{
				{field.ErrorTypeInvalid, "spec.requesters.exclude.users[0]", "must be an exact name: Kyverno reads * and ? as wildcards, and a requester must only ever match itself"},
				{field.ErrorTypeInvalid, "spec.requesters.exclude.groups[0]", "must be an exact name: Kyverno reads * and ? as wildcards, and a requester must only ever match itself"},
			}},
		"a user name of 257 characters is refused, counting characters": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{strings.Repeat("é", MaxRequesterNameLength+1)}}), code: 400,
			want: []fieldErr{{field.ErrorTypeTooLong, "spec.requesters.exclude.users[0]", "may not be more than 256 characters"}}},
		"a user listed twice is refused, naming the first": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{"alice", "bob", "alice"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.users[2]", "listed twice (first at spec.requesters.exclude.users[0])"}}},
		"names are case-sensitive, as Kubernetes compares them": {plan: nightly, code: 200,
			change: exclude(RequesterSet{Users: []string{"alice", "Alice"}})},
		"a service account written as a user is refused, pointing at serviceAccounts": {plan: nightly,
			change: exclude(RequesterSet{Users: []string{"system:serviceaccount:ci:release"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.users[0]", "list service accounts under serviceAccounts, as namespace:name (ci:release)"}}},
		"a service account in the system:serviceaccount: form is refused": {plan: nightly,
			change: exclude(RequesterSet{ServiceAccounts: []string{"system:serviceaccount:ci:release"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.serviceAccounts[0]", "write namespace:name, without system:serviceaccount:"}}},
		"a service account without a namespace is refused": {plan: nightly,
			change: include(RequesterSet{ServiceAccounts: []string{"release"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.include.serviceAccounts[0]", "must be namespace:name, e.g. ci:release-pipeline"}}},
		"a service account with a hostile name is refused": {plan: nightly,
			change: exclude(RequesterSet{ServiceAccounts: []string{"ci:x' || true"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.serviceAccounts[0]",
				"name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}}},
		"a service account listed twice is refused": {plan: nightly,
			change: exclude(RequesterSet{ServiceAccounts: []string{"ci:release", "ci:release"}}), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.requesters.exclude.serviceAccounts[1]", "listed twice (first at spec.requesters.exclude.serviceAccounts[0])"}}},
		"more than 32 users is refused": {plan: nightly, change: exclude(RequesterSet{Users: many}), code: 400,
			want: []fieldErr{{field.ErrorTypeTooMany, "spec.requesters.exclude.users", "must have at most 32 items"}}},
	})
}

func TestRequesterSet_Matches(t *testing.T) {
	set := RequesterSet{Users: []string{"alice"}, Groups: []string{"oncall"}, ServiceAccounts: []string{"ci:release"}}
	cases := map[string]struct {
		user   string
		groups []string
		want   bool
	}{
		"a listed user":                             {"alice", nil, true},
		"a user whose name only starts the same":    {"alice2", nil, false},
		"a user in a listed group":                  {"bob", []string{"dev", "oncall"}, true},
		"a listed service account":                  {"system:serviceaccount:ci:release", nil, true},
		"another service account of that namespace": {"system:serviceaccount:ci:other", nil, false},
		"a user named like the service account":     {"ci:release", nil, false},
		"names are compared case-sensitively":       {"Alice", []string{"OnCall"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := set.Matches(tc.user, tc.groups); got != tc.want {
				t.Errorf("Matches(%q, %v) = %v, want %v", tc.user, tc.groups, got, tc.want)
			}
		})
	}
}
