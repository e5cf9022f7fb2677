package overview

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func TestEnforcementOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		cond *metav1.Condition
		want HealthLabel
	}{
		{"a plan never checked is not checked", nil, HealthLabel{Label: "Not checked", Tone: ToneMuted, Detail: "the enforcement has not been checked yet"}},
		{"a verified freeze says so", &metav1.Condition{Status: metav1.ConditionTrue, Reason: "Enforced", Message: "holds"},
			HealthLabel{Label: "Verified", Tone: ToneOK, Detail: "holds"}},
		{"a freeze that fails open shows the reason in words", &metav1.Condition{Status: metav1.ConditionFalse, Reason: "WebhookFailsOpen", Message: "Ignore"},
			HealthLabel{Label: "Webhook fails open", Tone: ToneBad, Detail: "Ignore"}},
		{"a plan that is not active is not checked", &metav1.Condition{Status: metav1.ConditionUnknown, Reason: "NotEnforcing", Message: "nothing is enforced"},
			HealthLabel{Label: "Not checked", Tone: ToneMuted, Detail: "nothing is enforced"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &plan.ProtectionPlan{}
			if tc.cond != nil {
				c := *tc.cond
				c.Type = plan.ConditionEnforcementVerified
				p.Status.Conditions = []metav1.Condition{c}
			}
			if got := EnforcementOf(p); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if got := RowOf(p).Enforcement; got != tc.want {
				t.Errorf("RowOf: got %+v", got)
			}
		})
	}
}
