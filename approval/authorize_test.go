package approval

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telark/protectionplans/plan"
)

func planWith(scope plan.ScopeType, mode plan.Mode) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{Spec: plan.Spec{Name: "freeze", Mode: mode}}
	if scope == plan.ScopeApplications {
		p.Spec.Scope.Applications = []string{"checkout"}
	} else {
		p.Spec.Scope.Namespaces = []string{"payments"}
	}
	return p
}

// wantMatrix is written by hand, not computed. Each string has one
// character per case, in this order: applications/audit,
// applications/enforce, namespaces/audit, namespaces/enforce. Y = allowed,
// - = refused.
var wantMatrix = map[string]map[Action]string{
	RoleViewer: {
		ActionList:              "YYYY",
		ActionGet:               "YYYY",
		ActionCreate:            "----",
		ActionUpdate:            "----",
		ActionDelete:            "----",
		ActionCancel:            "----",
		ActionReactivate:        "----",
		ActionDuplicate:         "----",
		ActionApprove:           "----",
		ActionViolations:        "YYYY",
		ActionReports:           "YYYY",
		ActionHealth:            "YYYY",
		ActionCategoriesCreate:  "----",
		ActionCategoriesUpdate:  "----",
		ActionCategoriesDelete:  "----",
		ActionBreakGlassRequest: "----",
		ActionBreakGlassGrant:   "----",
	},
	RoleContributor: {
		ActionList:              "YYYY",
		ActionGet:               "YYYY",
		ActionCreate:            "YYY-",
		ActionUpdate:            "YYY-",
		ActionDelete:            "YYYY",
		ActionCancel:            "YYYY",
		ActionReactivate:        "YYY-",
		ActionDuplicate:         "YYY-",
		ActionApprove:           "----",
		ActionViolations:        "YYYY",
		ActionReports:           "YYYY",
		ActionHealth:            "YYYY",
		ActionCategoriesCreate:  "----",
		ActionCategoriesUpdate:  "----",
		ActionCategoriesDelete:  "----",
		ActionBreakGlassRequest: "YYYY",
		ActionBreakGlassGrant:   "----",
	},
	RoleOwner: {
		ActionList:              "YYYY",
		ActionGet:               "YYYY",
		ActionCreate:            "YYYY",
		ActionUpdate:            "YYYY",
		ActionDelete:            "YYYY",
		ActionCancel:            "YYYY",
		ActionReactivate:        "YYYY",
		ActionDuplicate:         "YYYY",
		ActionApprove:           "YYYY",
		ActionViolations:        "YYYY",
		ActionReports:           "YYYY",
		ActionHealth:            "YYYY",
		ActionCategoriesCreate:  "YYYY",
		ActionCategoriesUpdate:  "YYYY",
		ActionCategoriesDelete:  "YYYY",
		ActionBreakGlassRequest: "YYYY",
		ActionBreakGlassGrant:   "YYYY",
	},
}

func TestPermissionMatrix(t *testing.T) {
	cases := []struct {
		scope plan.ScopeType
		mode  plan.Mode
	}{
		{plan.ScopeApplications, plan.ModeAudit},
		{plan.ScopeApplications, plan.ModeEnforce},
		{plan.ScopeNamespaces, plan.ModeAudit},
		{plan.ScopeNamespaces, plan.ModeEnforce},
	}
	// Every action of the closed set has a row for every role.
	for role, rows := range wantMatrix {
		require.Len(t, rows, len(Actions()), role)
	}
	rows := 0
	for _, roleName := range []string{RoleViewer, RoleContributor, RoleOwner} {
		role, ok := BuiltinRole(roleName)
		require.True(t, ok)
		caller := Caller{Username: "u", Roles: []Role{role}}
		for _, action := range Actions() {
			want, ok := wantMatrix[roleName][action]
			require.True(t, ok, "no expected row for %s %s", roleName, action)
			for i, c := range cases {
				name := fmt.Sprintf("%s %s %s/%s", roleName, action, c.scope, c.mode)
				t.Run(name, func(t *testing.T) {
					d := Check(caller, action, planWith(c.scope, c.mode))
					assert.Equal(t, want[i] == 'Y', d.Allowed, d.Reason)
					assert.NotEmpty(t, d.Reason)
					err := Authorize(caller, action, planWith(c.scope, c.mode))
					if d.Allowed {
						assert.NoError(t, err)
					} else {
						assert.Equal(t, 403, plan.CodeOf(err))
					}
				})
				rows++
			}
		}
	}
	assert.Equal(t, 3*17*4, rows)
}

func TestPermissionReasons(t *testing.T) {
	owner := Caller{Username: "olivia", Roles: []Role{Owner()}}
	contributor := Caller{Username: "carl", Roles: []Role{Contributor()}}
	viewer := Caller{Username: "vera", Roles: []Role{Viewer()}}
	noCancel, err := ParseRole("no-cancel", "protection-plans.cancel.deny")
	require.NoError(t, err)
	approverish, err := ParseRole("approver-ish", "protection-plans.get", "protection-plans.approve")
	require.NoError(t, err)
	auditor, err := ParseRole("auditor", "protection-plans.list", "protection-plans.get",
		"protection-plans.reports", "protection-plans.violations.deny")
	require.NoError(t, err)

	tests := []struct {
		name   string
		caller Caller
		action Action
		target *plan.ProtectionPlan
		want   Decision
	}{
		{
			name:   "an Owner is told which role granted the action",
			caller: owner, action: ActionCancel, target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want: Decision{Allowed: true, Reason: `granted by role "Owner"`},
		},
		{
			name:   "a deny on cancel beats Owner",
			caller: Caller{Username: "olivia", Roles: []Role{Owner(), noCancel}}, action: ActionCancel,
			target: planWith(plan.ScopeApplications, plan.ModeAudit),
			want:   Decision{Reason: `role "no-cancel" withholds cancel (protection-plans.cancel.deny), and a deny wins over every grant; ask whoever manages roles to lift it`},
		},
		{
			name:   "a deny on cancel leaves the Owner's other actions alone",
			caller: Caller{Username: "olivia", Roles: []Role{Owner(), noCancel}}, action: ActionReactivate,
			target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want:   Decision{Allowed: true, Reason: `granted by role "Owner"`},
		},
		{
			name:   "a deny in a role listed before the grant still wins",
			caller: Caller{Roles: []Role{noCancel, Contributor()}}, action: ActionCancel,
			want: Decision{Reason: `role "no-cancel" withholds cancel (protection-plans.cancel.deny), and a deny wins over every grant; ask whoever manages roles to lift it`},
		},
		{
			name:   "a custom role grants only what it lists",
			caller: Caller{Roles: []Role{auditor}}, action: ActionReports,
			want: Decision{Allowed: true, Reason: `granted by role "auditor"`},
		},
		{
			name:   "a custom role withholding violations refuses the feed",
			caller: Caller{Roles: []Role{auditor, Viewer()}}, action: ActionViolations,
			want: Decision{Reason: `role "auditor" withholds violations (protection-plans.violations.deny), and a deny wins over every grant; ask whoever manages roles to lift it`},
		},
		{
			name:   "a custom role that does not list an action refuses it",
			caller: Caller{Roles: []Role{auditor}}, action: ActionHealth,
			want: Decision{Reason: `none of your roles (auditor) grants protection-plans.health; it comes with the roles Viewer, Contributor, Owner`},
		},
		{
			name:   "a Viewer may not create and is told which roles may",
			caller: viewer, action: ActionCreate, target: planWith(plan.ScopeApplications, plan.ModeAudit),
			want: Decision{Reason: `none of your roles (Viewer) grants protection-plans.create; it comes with the roles Contributor, Owner`},
		},
		{
			name:   "a caller without roles may do nothing",
			caller: Caller{Username: "nobody"}, action: ActionList,
			want: Decision{Reason: `none of your roles (none) grants protection-plans.list; it comes with the roles Viewer, Contributor, Owner`},
		},
		{
			name:   "a Contributor may not approve",
			caller: contributor, action: ActionApprove,
			want: Decision{Reason: `none of your roles (Contributor) grants protection-plans.approve; it comes with the role Owner`},
		},
		{
			name:   "a Contributor may not manage categories",
			caller: contributor, action: ActionCategoriesCreate,
			want: Decision{Reason: `none of your roles (Contributor) grants protection-plans.categories.create; it comes with the role Owner`},
		},
		{
			name:   "a custom grant of approve does not make an approver",
			caller: Caller{Roles: []Role{approverish}}, action: ActionApprove,
			want: Decision{Reason: `approvers are Owners on protection-plans; role "approver-ish" grants approve but is not Owner`},
		},
		{
			name:   "a custom role named Owner is not the Owner role",
			caller: Caller{Roles: []Role{{Name: "Owner", Allow: Actions()}}}, action: ActionCreate,
			target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want:   Decision{Reason: "enforcing a namespace scope needs Owner on protection-plans; use audit mode, scope the plan to applications, or ask an Owner"},
		},
		{
			name:   "a Contributor may not create an enforce plan on namespaces",
			caller: contributor, action: ActionCreate, target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want: Decision{Reason: "enforcing a namespace scope needs Owner on protection-plans; use audit mode, scope the plan to applications, or ask an Owner"},
		},
		{
			name:   "a Contributor may create an audit plan on namespaces",
			caller: contributor, action: ActionCreate, target: planWith(plan.ScopeNamespaces, plan.ModeAudit),
			want: Decision{Allowed: true, Reason: `granted by role "Contributor"`},
		},
		{
			name:   "a Contributor may create an enforce plan on applications",
			caller: contributor, action: ActionCreate, target: planWith(plan.ScopeApplications, plan.ModeEnforce),
			want: Decision{Allowed: true, Reason: `granted by role "Contributor"`},
		},
		{
			name:   "a Contributor's edit that moves a namespaces plan to enforce is refused",
			caller: contributor, action: ActionUpdate, target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want: Decision{Reason: "enforcing a namespace scope needs Owner on protection-plans; use audit mode, scope the plan to applications, or ask an Owner"},
		},
		{
			name:   "a Contributor may cancel an Owner's enforce plan on namespaces (cancel lifts enforcement)",
			caller: contributor, action: ActionCancel, target: planWith(plan.ScopeNamespaces, plan.ModeEnforce),
			want: Decision{Allowed: true, Reason: `granted by role "Contributor"`},
		},
		{
			name:   "without a target the namespace rule is not checked",
			caller: contributor, action: ActionCreate,
			want: Decision{Allowed: true, Reason: `granted by role "Contributor"`},
		},
		{
			name:   "an unknown action is refused",
			caller: owner, action: Action("explode"),
			want: Decision{Reason: `unknown action "explode" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var target *plan.ProtectionPlan
			if tt.target != nil {
				target = tt.target.DeepCopy()
			}
			assert.Equal(t, tt.want, Check(tt.caller, tt.action, tt.target))
			assert.Equal(t, target, tt.target, "Check must not change its target")
		})
	}
}

func TestAuthorizeErrorIsTyped(t *testing.T) {
	err := Authorize(Caller{Username: "vera", Roles: []Role{Viewer()}}, ActionDelete, nil)
	var fe *ForbiddenError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, ActionDelete, fe.Action)
	assert.Equal(t, "vera", fe.Username)
	assert.Equal(t, 403, plan.CodeOf(err))
	assert.Equal(t, "vera may not delete: none of your roles (Viewer) grants protection-plans.delete; it comes with the roles Contributor, Owner", err.Error())
}

func TestParsePermission(t *testing.T) {
	tests := []struct {
		in      string
		want    Permission
		wantErr string
	}{
		{in: "protection-plans.cancel", want: Permission{Action: ActionCancel}},
		{in: "protection-plans.cancel.deny", want: Permission{Action: ActionCancel, Deny: true}},
		{in: "protection-plans.categories.delete", want: Permission{Action: ActionCategoriesDelete}},
		{in: "protection-plans.categories.delete.deny", want: Permission{Action: ActionCategoriesDelete, Deny: true}},
		{in: "protection-plans.explode", wantErr: `permission "protection-plans.explode": unknown action "explode" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`},
		{in: "protection-plans.Cancel", wantErr: `permission "protection-plans.Cancel": unknown action "Cancel" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`},
		{in: "protection-plans.deny", wantErr: `permission "protection-plans.deny": unknown action "deny" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`},
		{in: "protection-plans.cancel.deny.deny", wantErr: `permission "protection-plans.cancel.deny.deny": unknown action "cancel.deny" (known: list, get, create, update, delete, cancel, reactivate, duplicate, approve, violations, reports, health, categories.create, categories.update, categories.delete, breakglass.request, breakglass.grant)`},
		{in: "clusters.cancel", wantErr: `permission "clusters.cancel": does not start with "protection-plans."`},
		{in: "", wantErr: `permission "": does not start with "protection-plans."`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePermission(tt.in)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Equal(t, 400, plan.CodeOf(err))
				var pe *ParseError
				assert.True(t, errors.As(err, &pe))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, got.String())
		})
	}
}

func TestParseRoleReportsEveryBadString(t *testing.T) {
	_, err := ParseRole("broken", "protection-plans.get", "protection-plans.nope", "nope.get.deny")
	require.Error(t, err)
	assert.Equal(t, 400, plan.CodeOf(err))
	assert.Contains(t, err.Error(), `permission "protection-plans.nope": unknown action "nope"`)
	assert.Contains(t, err.Error(), `permission "nope.get.deny": does not start with "protection-plans."`)

	r, err := ParseRole("ok", "protection-plans.get", "protection-plans.get.deny")
	require.NoError(t, err)
	assert.Equal(t, Role{Name: "ok", Allow: []Action{ActionGet}, Deny: []Action{ActionGet}}, r)
	assert.False(t, Check(Caller{Roles: []Role{r}}, ActionGet, nil).Allowed, "a deny in the same role wins")
}

func TestBuiltinRoles(t *testing.T) {
	_, ok := BuiltinRole("owner")
	assert.False(t, ok, "names are exact")
	o, ok := BuiltinRole(RoleOwner)
	require.True(t, ok)
	assert.True(t, o.IsOwner())
	// A caller changing a returned role does not change the next one.
	v := Viewer()
	v.Allow[0] = ActionDelete
	assert.Equal(t, ActionList, Viewer().Allow[0])
	assert.Len(t, Actions(), 17)
}
