package render

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/plan"
)

// Requesters (spec.requesters): exempt users, groups and service accounts
// are excluded from every rule and their writes recorded by the record
// policy; with include, only the included requesters are frozen;
// exclusions win.

// hostileUser is an exempt user's name made of what Kyverno, JMESPath and
// CEL would read if it reached an expression: quotes, a backslash,
// JMESPath literals and operators. ("$(", "{{" and "}}" are refused.)
const hostileUser = "O'Brien \"ops\" \\ $x (y) '), to_string(@) || `true` && {z}"

// hostileGroupMember is a requester in an exempt group whose name the
// plan never lists: a Kyverno variable and a line break.
var hostileGroupMember = UserInfo{Username: "{{ request.object.metadata.name }}\nsecond line", Groups: []string{"platform-oncall"}}

// exemptingPlan freezes scaling and image changes in shop, except for a
// bot, the hostile user, the on-call group and the release pipeline.
func exemptingPlan(mode plan.Mode) *plan.ProtectionPlan {
	p := namespacePlan(mode, []string{"shop"}, tpl("scaling"), tpl("image-change"))
	p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{
		Users:           []string{"release-bot", hostileUser},
		Groups:          []string{"platform-oncall"},
		ServiceAccounts: []string{"ci:release-pipeline"},
	}}
	return p
}

// includingPlan freezes scaling for developers and the deployer service
// account only, except dave.
func includingPlan() *plan.ProtectionPlan {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"))
	p.Spec.Requesters = &plan.Requesters{
		Include: plan.RequesterSet{Groups: []string{"developers"}, ServiceAccounts: []string{"ci:deployer"}},
		Exclude: plan.RequesterSet{Users: []string{"dave"}},
	}
	return p
}

// exemptingApplicationsPlan is applicationsPlan with an exempt bot.
func exemptingApplicationsPlan() *plan.ProtectionPlan {
	p := applicationsPlan()
	p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{Users: []string{"release-bot"}}}
	return p
}

type requesterCase struct {
	name string
	plan *plan.ProtectionPlan
	apps []plan.Application
	req  Request
	// want is the kyverno target's decision.
	want Decision
}

func user(name string, groups ...string) UserInfo { return UserInfo{Username: name, Groups: groups} }

// recorded is the kyverno target's decision on a write an exemption
// admits.
func recorded(template, rule, username, what, planName, policy, which string) Decision {
	return Decision{
		Exempt: true, Template: template, Rule: rule, Namespace: "shop", Policy: policy,
		Message: "exempt requester base64:" + base64.StdEncoding.EncodeToString([]byte(username)) +
			" admitted by protection plan " + planName + ": " + what,
		Reason: "admitted: " + username + " is exempt from the plan (" + which + "); recorded by rule " + rule + " of policy shop/" + policy,
	}
}

func requesterCases() []requesterCase {
	scaleUp := scaleReq(gvkDeployment, "web", 1, 2)
	newImage := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", checkoutLabels, 2, "a=x:2"))
	relabel := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", map[string]string{"x": "y"}, 2, "a=x:1"))
	leave := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1"))
	refusedScale := Decision{Blocked: true, Template: "scaling", Rule: "replicas", Namespace: "shop", Policy: "summer-freeze-scaling",
		Message: "scaling is frozen by protection plan Summer freeze until 2026-07-24 06:00 CEST",
		Reason:  "refused by rule replicas of policy shop/summer-freeze-scaling"}
	const sf, cf = "Summer freeze", "Checkout freeze"
	return []requesterCase{
		{"requesters: an exempt user's kubectl scale is admitted and recorded", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, user("release-bot")),
			recorded("scaling", "replicas", "release-bot", "scaling", sf, "summer-freeze-exempt", "user release-bot")},
		{"requesters: another user's kubectl scale is refused", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, user("alice", "system:authenticated")), refusedScale},
		{"requesters: a user whose name extends an exempt one is refused", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, user("release-bot2")), refusedScale},
		{"requesters: a member of an exempt group is admitted and recorded, his name inert", exemptingPlan(plan.ModeEnforce), nil,
			as(newImage, hostileGroupMember),
			recorded("image-change", "template-images", hostileGroupMember.Username, "changing container images", sf, "summer-freeze-exempt", "group platform-oncall")},
		{"requesters: an exempt service account is admitted and recorded", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, user("system:serviceaccount:ci:release-pipeline", "system:serviceaccounts")),
			recorded("scaling", "replicas", "system:serviceaccount:ci:release-pipeline", "scaling", sf, "summer-freeze-exempt", "service account ci:release-pipeline")},
		{"requesters: another service account of the same namespace is refused", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, user("system:serviceaccount:ci:other")), refusedScale},
		{"requesters: the hostile exempt user is exempt as exactly his name", exemptingPlan(plan.ModeEnforce), nil,
			as(newImage, user(hostileUser)),
			recorded("image-change", "template-images", hostileUser, "changing container images", sf, "summer-freeze-exempt", "user "+hostileUser)},
		{"requesters: a user named like the hostile one but for a quote is refused", exemptingPlan(plan.ModeEnforce), nil,
			as(newImage, user(strings.Replace(hostileUser, "'", "", 1))),
			Decision{Blocked: true, Template: "image-change", Rule: "template-images", Namespace: "shop", Policy: "summer-freeze-image-change",
				Message: "changing container images is frozen by protection plan Summer freeze until 2026-07-24 06:00 CEST",
				Reason:  "refused by rule template-images of policy shop/summer-freeze-image-change"}},
		{"requesters: an exempt user's label change is neither refused nor recorded", exemptingPlan(plan.ModeEnforce), nil,
			as(relabel, user("release-bot")),
			Decision{Reason: "UPDATE of Deployment shop/web is not scaling or changing container images"}},
		{"requesters: an exempt user of an audit plan is recorded as exempt, not audited", exemptingPlan(plan.ModeAudit), nil,
			as(scaleUp, user("release-bot")),
			recorded("scaling", "replicas", "release-bot", "scaling", sf, "summer-freeze-exempt", "user release-bot")},
		{"requesters: the control plane stays exempt, unrecorded", exemptingPlan(plan.ModeEnforce), nil,
			as(scaleUp, hpa),
			Decision{Reason: "system:serviceaccount:kube-system:horizontal-pod-autoscaler is exempt (controllers running in kube-system (ReplicaSet, Job, CronJob, garbage collector, HPA, namespace, node lifecycle, ...)): Kubernetes' own control plane is never frozen"}},
		{"include: a developer's kubectl scale is refused", includingPlan(), nil,
			as(scaleUp, user("alice", "developers")), refusedScale},
		{"include: the included service account is refused", includingPlan(), nil,
			as(scaleUp, user("system:serviceaccount:ci:deployer")), refusedScale},
		{"include: someone outside the included requesters is admitted, unrecorded", includingPlan(), nil,
			as(scaleUp, user("bob", "system:authenticated")),
			Decision{Reason: "bob is not among the requesters the plan is limited to (spec.requesters.include)"}},
		{"include: an exempt developer is admitted and recorded (exclusions win)", includingPlan(), nil,
			as(scaleUp, user("dave", "developers")),
			recorded("scaling", "replicas", "dave", "scaling", sf, "summer-freeze-exempt", "user dave")},
		{"include: an exempt user outside the included requesters is admitted without a record", includingPlan(), nil,
			as(scaleUp, user("dave")),
			Decision{Reason: "dave is not among the requesters the plan is limited to (spec.requesters.include)"}},
		{"requesters: an exempt user moving an object out of its application is recorded by the scope guard",
			exemptingApplicationsPlan(), []plan.Application{checkoutApp()}, as(leave, user("release-bot")),
			recorded("image-change", "image-change-scope-guard", "release-bot", "moving resources out of application checkout", cf, "checkout-freeze-exempt", "user release-bot")},
		{"requesters: an exempt user's kubectl scale of an application's Deployment is recorded by the /scale rule",
			exemptingApplicationsPlan(), []plan.Application{checkoutApp()}, as(scaleUp, user("release-bot")),
			recorded("scaling", "replicas-deployments-scale", "release-bot", "scaling", cf, "checkout-freeze-exempt", "user release-bot")},
		{"requesters: another user moving an object out of its application is refused",
			exemptingApplicationsPlan(), []plan.Application{checkoutApp()}, as(leave, user("alice")),
			Decision{Blocked: true, Template: "image-change", Rule: "scope-guard", Namespace: "shop", Policy: "checkout-freeze-image-change",
				Message: "moving Deployment web out of application checkout is frozen by protection plan Checkout freeze until 2026-07-24 06:00 CEST",
				Reason:  "refused by rule scope-guard of policy shop/checkout-freeze-image-change"}},
	}
}

func TestExplain_Requesters(t *testing.T) {
	for _, tt := range requesterCases() {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Explain(Input{Plan: tt.plan, Applications: tt.apps, Now: now}, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, d); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplain_RecordMessagePerTarget: the record names the requester in
// base64 for kyverno (its messages are templates), as is for the CEL
// targets (a message expression's result is not evaluated), a line break
// read as a space; the record policy is the namespace's, named for
// ExemptTemplate, and its rule is named as in the compact layout.
func TestExplain_RecordMessagePerTarget(t *testing.T) {
	req := as(scaleReq(gvkDeployment, "web", 1, 2), hostileGroupMember)
	tests := []struct {
		target         Target
		compact        bool
		policy, rule   string
		requesterShown string
	}{
		{TargetKyverno, false, "summer-freeze-exempt", "replicas", "base64:" + base64.StdEncoding.EncodeToString([]byte(hostileGroupMember.Username))},
		{TargetKyverno, true, "summer-freeze-exempt", "replicas", "base64:" + base64.StdEncoding.EncodeToString([]byte(hostileGroupMember.Username))},
		{TargetKyvernoCEL, false, "summer-freeze-exempt", "replicas", "{{ request.object.metadata.name }} second line"},
		{TargetVAP, false, "summer-freeze-exempt.shop", "replicas", "{{ request.object.metadata.name }} second line"},
		{TargetVAP, true, "summer-freeze-exempt.shop", "replicas", "{{ request.object.metadata.name }} second line"},
	}
	for _, tt := range tests {
		d, err := Explain(Input{Plan: exemptingPlan(plan.ModeEnforce), Now: now, Target: tt.target, Compact: tt.compact}, req)
		if err != nil {
			t.Fatal(err)
		}
		want := "exempt requester " + tt.requesterShown + " admitted by protection plan Summer freeze: scaling"
		if !d.Exempt || d.Blocked || d.Audited || d.Policy != tt.policy || d.Rule != tt.rule || d.Message != want {
			t.Errorf("%s (compact %v): %+v\nwant policy %s, rule %s, message %q", tt.target, tt.compact, d, tt.policy, tt.rule, want)
		}
	}
}

// TestRender_RecordPolicy: a plan with exempt requesters gets one record
// policy per namespace, in audit mode whatever the plan's mode, holding
// every template; a plan without them, or with include only, none.
func TestRender_RecordPolicy(t *testing.T) {
	for _, target := range Targets() {
		for _, compact := range []bool{false, true} {
			p := exemptingPlan(plan.ModeEnforce)
			p.Spec.Scope.Namespaces = []string{"shop", "payments"}
			res := mustRender(t, Input{Plan: p, Now: now, Target: target, Compact: compact})
			var records []Policy
			for _, pol := range res.Policies {
				if pol.Template == ExemptTemplate {
					records = append(records, pol)
				}
			}
			main := 4
			if compact {
				main = 2
			}
			if len(records) != 2 || len(res.Policies) != main+2 {
				t.Fatalf("%s compact=%v: %d policies, %d records; want %d and 2", target, compact, len(res.Policies), len(records), main+2)
			}
			for _, r := range records {
				if diff := cmp.Diff([]string{"scaling", "image-change"}, r.Templates); diff != "" {
					t.Errorf("%s: record templates (-want +got):\n%s", target, diff)
				}
				modeObj := r.Objects[len(r.Objects)-1] // vap: the binding
				if m, err := FailureAction(modeObj); err != nil || m != plan.ModeAudit {
					t.Errorf("%s: record policy %s mode %q (%v), want audit", target, r.Name, m, err)
				}
				if r.Objects[0].GetLabels()[LabelTemplate] != ExemptTemplate {
					t.Errorf("%s: record policy labels %v", target, r.Objects[0].GetLabels())
				}
			}
			for _, without := range []*plan.Requesters{nil, {Include: plan.RequesterSet{Users: []string{"x"}}}} {
				p.Spec.Requesters = without
				for _, pol := range mustRender(t, Input{Plan: p, Now: now, Target: target, Compact: compact}).Policies {
					if pol.Template == ExemptTemplate {
						t.Errorf("%s: requesters %+v render a record policy", target, without)
					}
				}
			}
		}
	}
}

// TestRender_RefusesWildcardRequesters: render checks requester names
// again (Kyverno would read * as a pattern), whatever validation did.
func TestRender_RefusesWildcardRequesters(t *testing.T) {
	for _, name := range []string{"system:*", "dev?", "x{{ request.object }}", "$(request.object)", "a\nb", ""} {
		p := exemptingPlan(plan.ModeEnforce)
		p.Spec.Requesters.Exclude.Groups = []string{name}
		_, err := Render(Input{Plan: p, Now: now})
		var verr *plan.ValidationError
		if !errors.As(err, &verr) || !strings.Contains(err.Error(), "spec.requesters.exclude.groups[0]") {
			t.Errorf("group %q: err = %v, want a validation error naming spec.requesters.exclude.groups[0]", name, err)
		}
	}
}

// TestRender_RequestersOrderDoesNotMatter: the same requesters in another
// order render the same bytes on every target.
func TestRender_RequestersOrderDoesNotMatter(t *testing.T) {
	for _, target := range Targets() {
		a := exemptingPlan(plan.ModeEnforce)
		a.Spec.Requesters.Include = plan.RequesterSet{Groups: []string{"developers", "sre"}}
		b := a.DeepCopy()
		ex := &b.Spec.Requesters.Exclude
		ex.Users = []string{ex.Users[1], ex.Users[0]}
		b.Spec.Requesters.Include.Groups = []string{"sre", "developers"}
		want := mustYAML(t, mustRender(t, Input{Plan: a, Now: now, Target: target}))
		if got := mustYAML(t, mustRender(t, Input{Plan: b, Now: now, Target: target})); string(got) != string(want) {
			t.Errorf("%s: reordered requesters render other bytes", target)
		}
	}
}
