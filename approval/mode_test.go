package approval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telark/protectionplans/plan"
)

func TestDeriveMode(t *testing.T) {
	owner := Caller{Username: "olivia", Roles: []Role{Owner()}}
	contributor := Caller{Username: "carl", Roles: []Role{Contributor()}}
	requiredByDefault := Config{DefaultMode: plan.ApprovalRequired}

	tests := []struct {
		name        string
		requested   plan.ApprovalMode
		environment string
		caller      Caller
		cfg         Config
		want        ModeDecision
	}{
		{
			name: "a plan outside Production is automatic by default", environment: "Staging", caller: contributor,
			want: ModeDecision{Mode: plan.ApprovalAutomatic, Reason: "the default (automatic) applies"},
		},
		{
			name: "a plan with no environment is automatic by default", caller: contributor,
			want: ModeDecision{Mode: plan.ApprovalAutomatic, Reason: "the default (automatic) applies"},
		},
		{
			name: "the default is configurable", environment: "Staging", caller: contributor, cfg: requiredByDefault,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: "the default (required) applies"},
		},
		{
			name: "Production is always required", environment: "Production", caller: contributor,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: `a plan in the Production environment ("Production") always requires approval`},
		},
		{
			name: "Production is recognised ignoring case and spaces", environment: " production ", caller: owner,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: `a plan in the Production environment (" production ") always requires approval`},
		},
		{
			name: "Production is required even when an Owner asks for automatic", requested: plan.ApprovalAutomatic,
			environment: "Production", caller: owner,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: `a plan in the Production environment ("Production") always requires approval`, Ignored: true},
		},
		{
			name: "any client may ask for required", requested: plan.ApprovalRequired, environment: "Development", caller: contributor,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: "the client asked for required"},
		},
		{
			name: "an Owner's request for automatic counts", requested: plan.ApprovalAutomatic, environment: "Staging",
			caller: owner, cfg: requiredByDefault,
			want: ModeDecision{Mode: plan.ApprovalAutomatic, Reason: "an Owner asked for automatic"},
		},
		{
			name: "automatic from a non-Owner is ignored and the default applies", requested: plan.ApprovalAutomatic,
			environment: "Staging", caller: contributor, cfg: requiredByDefault,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: "asking for automatic counts only from an Owner on protection-plans; the default (required) applies", Ignored: true},
		},
		{
			name: "automatic from a non-Owner is ignored even when the default is automatic", requested: plan.ApprovalAutomatic,
			environment: "Staging", caller: contributor,
			want: ModeDecision{Mode: plan.ApprovalAutomatic, Reason: "asking for automatic counts only from an Owner on protection-plans; the default (automatic) applies", Ignored: true},
		},
		{
			name: "a custom role with every action is not an Owner for automatic", requested: plan.ApprovalAutomatic,
			caller: Caller{Roles: []Role{{Name: "Owner", Allow: Actions()}}}, cfg: requiredByDefault,
			want: ModeDecision{Mode: plan.ApprovalRequired, Reason: "asking for automatic counts only from an Owner on protection-plans; the default (required) applies", Ignored: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DeriveMode(tt.requested, tt.environment, tt.caller, tt.cfg)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDeriveModeErrors(t *testing.T) {
	owner := Caller{Roles: []Role{Owner()}}
	t.Run("an unknown requested mode is a 400 on spec.approvalMode", func(t *testing.T) {
		_, err := DeriveMode("sometimes", "Staging", owner, Config{})
		require.Error(t, err)
		assert.Equal(t, 400, plan.CodeOf(err))
		assert.EqualError(t, err, `spec.approvalMode: Unsupported value: "sometimes": supported values: "automatic", "required"`)
	})
	t.Run("a bad configured default is the embedder's fault (500)", func(t *testing.T) {
		_, err := DeriveMode("", "Staging", owner, Config{DefaultMode: "maybe"})
		require.Error(t, err)
		assert.Equal(t, 500, plan.CodeOf(err))
		assert.EqualError(t, err, `approval: Config.DefaultMode "maybe" is neither "automatic" nor "required"`)
	})
}
