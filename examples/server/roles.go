package main

import (
	"fmt"
	"os"

	"github.com/telark/protectionplans/approval"
)

// LoadRoles reads the roles file (approval.RolesConfig, in YAML) once at
// start: a change needs a restart. Every problem is reported at once.
func LoadRoles(path string) (*approval.RoleBindings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("roles file: %w", err)
	}
	r, err := approval.ParseRoleBindings(data)
	if err != nil {
		return nil, fmt.Errorf("roles file %s: %w", path, err)
	}
	return r, nil
}
