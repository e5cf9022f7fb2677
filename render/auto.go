package render

import (
	"fmt"
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// TargetAuto is not a target Render takes: an embedder (the operator, the
// API server) that is told "auto" resolves it once at start with
// ChooseTarget, from what the cluster's discovery says it serves, and
// renders to the target chosen. Render.Input's own default (no target) is
// still TargetKyverno, as the product documentation describes.
const TargetAuto Target = "auto"

// autoOrder is ChooseTarget's preference: Kyverno's CEL policies where
// Kyverno serves them (Kyverno deprecated kyverno.io/v1 in 1.17 and plans
// to remove it in 1.20), the API server's own policies where no Kyverno
// runs, and kyverno.io/v1 only where it is all the cluster has.
var autoOrder = []Target{TargetKyvernoCEL, TargetVAP, TargetKyverno}

// Choice is the target ChooseTarget picked and why, in a sentence for the
// log.
type Choice struct {
	Target Target
	Reason string
}

// ChooseTarget picks the target for TargetAuto from served, the kinds the
// cluster serves (its discovery, gathered by the embedder; kinds of no
// target are ignored): the first of kyverno-cel, vap and kyverno all of
// whose kinds (KindsOf) are served. With none served it returns a
// *NoTargetServedError.
func ChooseTarget(served []schema.GroupVersionKind) (Choice, error) {
	for _, t := range autoOrder {
		kinds, err := KindsOf(t)
		if err != nil {
			return Choice{}, err
		}
		if all(kinds, served) {
			return Choice{Target: t, Reason: autoReason(t, served)}, nil
		}
	}
	return Choice{}, &NoTargetServedError{}
}

func all(kinds, served []schema.GroupVersionKind) bool {
	for _, k := range kinds {
		if !slices.Contains(served, k) {
			return false
		}
	}
	return true
}

func autoReason(t Target, served []schema.GroupVersionKind) string {
	kyvernoV1, _ := KindsOf(TargetKyverno)
	switch t {
	case TargetKyvernoCEL:
		return "Kyverno serves NamespacedValidatingPolicy (policies.kyverno.io/v1)"
	case TargetVAP:
		if all(kyvernoV1, served) {
			return "Kyverno serves only kyverno.io/v1, which it deprecated; the API server serves ValidatingAdmissionPolicy"
		}
		return "no Kyverno runs; the API server serves ValidatingAdmissionPolicy"
	default:
		return "kyverno.io/v1 Policy is the only kind of policy the cluster serves"
	}
}

// NoTargetServedError is ChooseTarget's answer for a cluster that serves
// no target's kinds: neither Kyverno nor ValidatingAdmissionPolicy
// (Kubernetes before 1.30). It is the cluster's state, not the caller's
// request: 503, like a policy API that is missing.
type NoTargetServedError struct{}

func (e *NoTargetServedError) Error() string {
	return fmt.Sprintf("target %q: the cluster serves the kinds of no target (%v): install Kyverno, or use Kubernetes 1.30 or later for ValidatingAdmissionPolicy", TargetAuto, autoOrder)
}

// HTTPCode is 503.
func (e *NoTargetServedError) HTTPCode() int { return http.StatusServiceUnavailable }

var _ plan.Coder = (*NoTargetServedError)(nil)
