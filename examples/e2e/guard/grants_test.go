package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// GrantsManifestPath is config/admission/grants.yaml, the guard of
// status.grants.
func GrantsManifestPath() string {
	return filepath.Join(filepath.Dir(ManifestPath()), "grants.yaml")
}

func loadGrantsManifest(t *testing.T) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(GrantsManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	p, b, err := Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", GrantsManifestPath(), err)
	}
	return p, b
}

// TestGrantsManifest: a native policy that fails closed, bound in Deny
// mode, on UPDATE of protectionplans/status only, trusting the server's
// service account alone.
func TestGrantsManifest(t *testing.T) {
	p, b := loadGrantsManifest(t)
	if p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy = %v, want Fail", p.Spec.FailurePolicy)
	}
	if b.Spec.PolicyName != p.Name || !slices.Equal(b.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) || b.Spec.MatchResources != nil {
		t.Errorf("binding %+v", b.Spec)
	}
	mc := p.Spec.MatchConstraints
	if mc == nil || len(mc.ResourceRules) != 1 {
		t.Fatalf("matchConstraints %+v", mc)
	}
	r := mc.ResourceRules[0]
	if !slices.Equal(r.Resources, []string{"protectionplans/status"}) || !slices.Equal(r.Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Update}) ||
		!slices.Equal(r.APIVersions, []string{plan.GroupVersion.Version}) {
		t.Errorf("rule %+v, want UPDATE of protectionplans/status in %s", r.Rule, plan.GroupVersion.Version)
	}
	data, _ := os.ReadFile(GrantsManifestPath())
	if n := strings.Count(string(stripComments(data)), "'"+DefaultTrustedWriter+"'"); n != 1 {
		t.Errorf("the trusted writer appears %d times outside comments, want once (one line to edit)", n)
	}
}

func TestGrantsDecisions(t *testing.T) {
	p, _ := loadGrantsManifest(t)
	g := compile(t, p)
	at := metav1.NewTime(time.Date(2026, 12, 24, 20, 0, 0, 0, time.UTC))
	grant := plan.Grant{ID: "p-g1", Users: []string{"carol"}, Reason: "INC-1", RequestedBy: "carol", RequestedAt: at}
	withGrants := func(seq int64, gs ...plan.Grant) plan.Status {
		return plan.Status{Phase: plan.PhaseActive, Grants: gs, GrantSeq: seq}
	}
	granted := grant
	granted.GrantedBy, granted.GrantedAt, granted.ExpiresAt = "alice", &at, &at
	const operator = "system:serviceaccount:telark-system:protectionplans-operator"
	for _, tc := range []struct {
		name      string
		user      string
		old, next plan.Status
		refused   bool
	}{
		{"the server adds a grant", DefaultTrustedWriter, withGrants(0), withGrants(1, grant), false},
		{"the server grants it", DefaultTrustedWriter, withGrants(1, grant), withGrants(1, granted), false},
		{"the operator writes the rest of the status, grants kept", operator, withGrants(1, grant), func() plan.Status {
			s := withGrants(1, grant)
			s.Phase, s.Window = plan.PhaseTerminated, "ended"
			return s
		}(), false},
		{"the operator writes a status that never had grants", operator, plan.Status{Phase: plan.PhaseScheduled}, plan.Status{Phase: plan.PhaseActive}, false},
		{"the operator may not add a grant", operator, withGrants(0), withGrants(1, grant), true},
		{"an administrator may not grant a request", "alice", withGrants(1, grant), withGrants(1, granted), true},
		{"nobody else may extend a grant", "carol", withGrants(1, granted), func() plan.Status {
			g := granted
			later := metav1.NewTime(at.Add(24 * time.Hour))
			g.ExpiresAt = &later
			return withGrants(1, g)
		}(), true},
		{"nobody else may remove a grant", operator, withGrants(1, granted), withGrants(1), true},
		{"nobody else may change the sequence", operator, withGrants(1, grant), withGrants(2, grant), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := g.decideStatus(t, tc.user, tc.old, tc.next)
			if (got != "") != tc.refused {
				t.Fatalf("refused %q, want refused %t", got, tc.refused)
			}
			if tc.refused && !strings.Contains(got, "only the protection plans API server may add, change or remove break-glass grants") {
				t.Errorf("message %q", got)
			}
		})
	}
}

// decideStatus evaluates the policy on a status UPDATE by user, as decide
// does for the created-by guard.
func (g *guard) decideStatus(t *testing.T, user string, old, next plan.Status) string {
	t.Helper()
	vars := map[string]any{
		"object":    plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: next},
		"oldObject": plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: old},
		"request":   admissionv1.AdmissionRequest{Operation: admissionv1.Update, SubResource: "status", UserInfo: authenticationv1.UserInfo{Username: user}},
	}
	return g.eval(t, "status update by "+user, vars)
}
