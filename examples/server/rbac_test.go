package main

import (
	"testing"

	"github.com/telark/protectionplans/examples/internal/gentest"
)

// TestRBACIsFresh: config/rbac/server is what the markers of rbac.go
// generate with the pinned controller-gen.
func TestRBACIsFresh(t *testing.T) {
	gentest.CheckFresh(t, "rbac.go", "rbac:roleName=", "output:rbac:artifacts:config=")
}
