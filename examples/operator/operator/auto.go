package operator

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/render"
)

// resolveAuto replaces render.TargetAuto in cfg by the target
// render.ChooseTarget picks from what the cluster serves (the manager's
// discovery-backed RESTMapper), once, at New, and logs the choice once.
// A cluster that cannot be asked is an error: guessing vap there would
// put the wrong policies in place. Kyverno installed later is not seen
// until the operator restarts.
func resolveAuto(cfg Config, mgr manager.Manager) (Config, error) {
	if cfg.Target != render.TargetAuto {
		return cfg, nil
	}
	choice, err := kube.ResolveTarget(mgr.GetRESTMapper(), cfg.Target)
	if err != nil {
		return cfg, fmt.Errorf("operator: target auto: %w", err)
	}
	cfg.Target = choice.Target
	if cfg.Log.GetSink() != nil {
		cfg.Log.Info("render target chosen", "target", choice.Target, "reason", choice.Reason)
	}
	return cfg, nil
}

// Target is the target the operator renders to: Config.Target, or what
// auto resolved to.
func (o *Operator) Target() render.Target { return o.cfg.Target }
