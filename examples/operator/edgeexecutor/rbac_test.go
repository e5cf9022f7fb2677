package edgeexecutor

import (
	"testing"

	"github.com/telark/protectionplans/examples/internal/gentest"
)

// TestRBACIsFresh: config/rbac/edge-executor is what the markers of
// doc.go generate with the pinned controller-gen.
func TestRBACIsFresh(t *testing.T) {
	gentest.CheckFresh(t, "doc.go", "rbac:roleName=", "output:rbac:artifacts:config=")
}
