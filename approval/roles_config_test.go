package approval_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
)

const rolesYAML = `
roles:
- name: Auditor
  permissions: [protection-plans.list, protection-plans.get, protection-plans.reports, protection-plans.violations]
- name: No deletes
  permissions: [protection-plans.delete.deny]
bindings:
- role: Owner
  users: [bob, alice, erin]
- role: Contributor
  users: [carol]
  groups: [developers]
- role: Auditor
  groups: [auditors]
- role: No deletes
  users: [erin]
`

func TestParseRoleBindings_Refusals(t *testing.T) {
	cases := map[string]struct {
		yaml string
		// want is every field error, "<field> <type>", in order.
		want []string
		// wantText is the message of the first one.
		wantText string
	}{
		"a custom role named like a built-in": {
			yaml: "roles: [{name: Owner, permissions: [protection-plans.list]}]\nbindings: []",
			want: []string{"roles[0].name FieldValueInvalid"}, wantText: `roles[0].name: Invalid value: "Owner": is a built-in role; give the custom role another name`,
		},
		"every bad permission string, with its index": {
			yaml:     "roles: [{name: Broken, permissions: [protection-plans.list, protection-plans.fly, cluster.admin]}]\nbindings: []",
			want:     []string{"roles[0].permissions[1] FieldValueInvalid", "roles[0].permissions[2] FieldValueInvalid"},
			wantText: `roles[0].permissions[1]: Invalid value: "protection-plans.fly": unknown action "fly" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`,
		},
		"a role without a name, one defined twice, one without permissions": {
			yaml: "roles: [{name: '', permissions: [protection-plans.list]}, {name: A, permissions: [protection-plans.list]}, {name: A, permissions: [protection-plans.get]}, {name: B, permissions: []}]\nbindings: []",
			want: []string{"roles[0].name FieldValueRequired", "roles[2].name FieldValueDuplicate", "roles[3].permissions FieldValueRequired"},
		},
		"a binding of an unknown role lists the roles there are": {
			yaml:     "roles: [{name: Auditor, permissions: [protection-plans.list]}]\nbindings: [{role: Ghost, users: [x]}]",
			want:     []string{"bindings[0].role FieldValueNotSupported"},
			wantText: `bindings[0].role: Unsupported value: "Ghost": supported values: "Owner", "Contributor", "Viewer", "Auditor"`,
		},
		"a binding of a role whose permissions are bad is of an unknown role too": {
			yaml: "roles: [{name: Broken, permissions: [fly]}]\nbindings: [{role: Broken, users: [x]}]",
			want: []string{"roles[0].permissions[0] FieldValueInvalid", "bindings[0].role FieldValueNotSupported"},
		},
		"a binding of nobody, and empty names": {
			yaml: "bindings: [{role: Viewer}, {role: Viewer, users: [''], groups: [g, '']}]",
			want: []string{"bindings[0] FieldValueRequired", "bindings[1].users[0] FieldValueRequired", "bindings[1].groups[1] FieldValueRequired"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := approval.ParseRoleBindings([]byte(tc.yaml))
			var ve *plan.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *plan.ValidationError", err)
			}
			var got []string
			for _, e := range ve.Errs {
				got = append(got, e.Field+" "+string(e.Type))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if tc.wantText != "" && ve.Errs[0].Error() != tc.wantText {
				t.Errorf("message:\n%s\nwant:\n%s", ve.Errs[0].Error(), tc.wantText)
			}
		})
	}
	t.Run("an unknown field is a decode error with its path", func(t *testing.T) {
		_, err := approval.ParseRoleBindings([]byte("bindings: []\ncolour: red\n"))
		var de *plan.DecodeError
		if !errors.As(err, &de) || de.Problems[0].Field != "colour" || de.Problems[0].Kind != plan.ProblemUnknownField {
			t.Errorf("err = %v", err)
		}
	})
}

func TestRoleBindings_Caller(t *testing.T) {
	rb, err := approval.ParseRoleBindings([]byte(rolesYAML))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		user   string
		groups []string
		want   []string
		owner  bool
	}{
		"a user holds the roles bound to them, in the file's order": {user: "erin", want: []string{"Owner", "No deletes"}, owner: true},
		"and those bound to their groups":                           {user: "zoe", groups: []string{"auditors", "developers"}, want: []string{"Auditor", "Contributor"}},
		"a user bound to nothing holds no role":                     {user: "mallory", groups: []string{"strangers"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := rb.Caller(tc.user, tc.groups)
			var got []string
			for _, r := range c.Roles {
				got = append(got, r.Name)
			}
			if !cmp.Equal(got, tc.want) || c.IsOwner() != tc.owner || c.Username != tc.user {
				t.Errorf("roles %v owner %v, want %v %v", got, c.IsOwner(), tc.want, tc.owner)
			}
		})
	}
	t.Run("the candidates are the users named in bindings, sorted, with their roles", func(t *testing.T) {
		var got []string
		for _, c := range rb.Candidates() {
			got = append(got, c.Username)
		}
		if diff := cmp.Diff([]string{"alice", "bob", "carol", "erin"}, got); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		if d := rb.Candidates()[3]; !d.IsOwner() || approval.Check(d, approval.ActionDelete, nil).Allowed {
			t.Errorf("erin: %+v", d)
		}
	})
}
