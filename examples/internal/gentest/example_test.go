package gentest_test

import (
	"fmt"

	"github.com/telark/protectionplans/examples/internal/gentest"
)

func ExampleWithOutput() {
	line := []string{"go", "run", "sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0",
		"rbac:roleName=protectionplans-server", "paths=./", "output:rbac:artifacts:config=../../config/rbac/server"}
	args, committed := gentest.WithOutput(line, "output:rbac:artifacts:config=", "/tmp/x")
	fmt.Println(args[len(args)-1])
	fmt.Println(committed)
	// Output:
	// output:rbac:artifacts:config=/tmp/x
	// ../../config/rbac/server
}
