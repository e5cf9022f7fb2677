package overview

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// EnforcementOf reads p's stored EnforcementVerified condition (the
// operator's last enforcement check, issue 21): not checked (absent, or
// unknown: a plan that is not active enforces nothing), verified, or its
// reason in words ("Webhook fails open").
func EnforcementOf(p *plan.ProtectionPlan) HealthLabel {
	c := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionEnforcementVerified)
	switch {
	case c == nil:
		return HealthLabel{Label: "Not checked", Tone: ToneMuted, Detail: "the enforcement has not been checked yet"}
	case c.Status == metav1.ConditionUnknown:
		return HealthLabel{Label: "Not checked", Tone: ToneMuted, Detail: c.Message}
	case c.Status == metav1.ConditionTrue:
		return HealthLabel{Label: "Verified", Tone: ToneOK, Detail: c.Message}
	}
	return HealthLabel{Label: SplitCamel(c.Reason), Tone: ToneBad, Detail: c.Message}
}
