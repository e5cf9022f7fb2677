// Package tests holds a platform team's tests of the sample plans, as
// files that `protectctl test tests/` runs, and this go test that runs the
// same files with package policytest.
package tests

import (
	"os"
	"testing"

	"github.com/telark/protectionplans/policytest"
)

func TestSamplePlans(t *testing.T) {
	policytest.TestFiles(t, os.DirFS(".."), "tests")
}
