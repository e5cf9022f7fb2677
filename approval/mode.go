package approval

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// Config holds the embedder's approval settings. The zero value is the
// documented default.
type Config struct {
	// DefaultMode is the approval mode of plans outside Production when the
	// client asks for nothing (or asks for automatic without being an
	// Owner). Empty means automatic.
	DefaultMode plan.ApprovalMode
}

func (c Config) defaultMode() (plan.ApprovalMode, error) {
	switch c.DefaultMode {
	case "":
		return plan.ApprovalAutomatic, nil
	case plan.ApprovalAutomatic, plan.ApprovalRequired:
		return c.DefaultMode, nil
	}
	return "", fmt.Errorf("approval: Config.DefaultMode %q is neither %q nor %q",
		c.DefaultMode, plan.ApprovalAutomatic, plan.ApprovalRequired)
}

// ModeDecision is the derived approval mode and why.
type ModeDecision struct {
	// Mode is the approval mode to store in spec.approvalMode.
	Mode plan.ApprovalMode
	// Reason says which rule chose it, for people.
	Reason string
	// Ignored is true when the client asked for a mode and the request did
	// not count: automatic in Production, or automatic from a caller who is
	// not an Owner. The server should tell the client.
	Ignored bool
}

// DeriveMode derives a new plan's approval mode when it is created or
// duplicated (R-A1):
//
//   - a plan in Production (plan.IsProduction: the built-in environment,
//     ignoring case and surrounding spaces) is always required;
//   - a client may ask for required;
//   - asking for automatic counts only from an Owner on protection-plans;
//     from anyone else it is ignored (not refused) and the default applies;
//   - otherwise the configured default applies (automatic unless
//     configured).
//
// requested is what the client sent ("" for nothing). An unknown requested
// mode is a *plan.ValidationError (400) on spec.approvalMode; an invalid
// Config.DefaultMode is an untyped error (500, the embedder's fault). The
// mode never changes afterwards: the plan lifecycle refuses edits of it.
func DeriveMode(requested plan.ApprovalMode, environment string, caller Caller, cfg Config) (ModeDecision, error) {
	switch requested {
	case "", plan.ApprovalAutomatic, plan.ApprovalRequired:
	default:
		return ModeDecision{}, plan.NewValidationError(field.ErrorList{field.NotSupported(
			field.NewPath("spec", "approvalMode"), requested,
			[]string{string(plan.ApprovalAutomatic), string(plan.ApprovalRequired)})})
	}
	def, err := cfg.defaultMode()
	if err != nil {
		return ModeDecision{}, err
	}
	switch {
	case plan.IsProduction(environment):
		return ModeDecision{
			Mode:    plan.ApprovalRequired,
			Reason:  fmt.Sprintf("a plan in the Production environment (%q) always requires approval", environment),
			Ignored: requested == plan.ApprovalAutomatic,
		}, nil
	case requested == plan.ApprovalRequired:
		return ModeDecision{Mode: plan.ApprovalRequired, Reason: "the client asked for required"}, nil
	case requested == plan.ApprovalAutomatic && caller.IsOwner():
		return ModeDecision{Mode: plan.ApprovalAutomatic, Reason: "an Owner asked for automatic"}, nil
	case requested == plan.ApprovalAutomatic:
		return ModeDecision{
			Mode:    def,
			Reason:  fmt.Sprintf("asking for automatic counts only from an Owner on protection-plans; the default (%s) applies", def),
			Ignored: true,
		}, nil
	}
	return ModeDecision{Mode: def, Reason: fmt.Sprintf("the default (%s) applies", def)}, nil
}
