package approval_test

import (
	"fmt"

	"github.com/telark/protectionplans/approval"
)

// A roles file read at start: a caller's roles come from their user and
// groups, and the users named in it are the candidates for Deciders.
func ExampleParseRoleBindings() {
	rb, err := approval.ParseRoleBindings([]byte(`
roles:
- name: No deletes
  permissions: [protection-plans.delete.deny]
bindings:
- role: Owner
  users: [alice]
- role: Contributor
  groups: [developers]
- role: No deletes
  groups: [contractors]
`))
	if err != nil {
		panic(err)
	}
	dev := rb.Caller("dan", []string{"developers", "contractors"})
	fmt.Println(approval.Check(dev, approval.ActionCreate, nil).Allowed, approval.Check(dev, approval.ActionDelete, nil).Allowed)
	fmt.Println(len(rb.Candidates()), rb.Candidates()[0].Username)

	_, err = approval.ParseRoleBindings([]byte("bindings: [{role: Admin, users: [root]}]"))
	fmt.Println(err)
	// Output:
	// true false
	// 1 alice
	// bindings[0].role: Unsupported value: "Admin": supported values: "Owner", "Contributor", "Viewer"
}
