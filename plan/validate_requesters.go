package plan

import (
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits of spec.requesters.
const (
	// MaxRequesters is how many entries each list of a RequesterSet
	// (users, groups, service accounts) may hold.
	MaxRequesters = 32
	// MaxRequesterNameLength is the longest user or group name, in
	// characters.
	MaxRequesterNameLength = 256
)

// ValidateRequesters checks spec.requesters (nil is valid: the plan
// freezes everyone). Every problem names its field, e.g.
// spec.requesters.exclude.users[2]:
//
//   - a name that is empty, begins or ends with a space, holds a control
//     character, "{{", "}}" or "$(" (names reach policies, and nothing a
//     user writes may look like a Kyverno variable or reference, which
//     Kyverno reads even in a rule's subjects), "*" or "?" (Kyverno
//     matches subjects as wildcard patterns: a name must only ever match
//     itself), or is longer than MaxRequesterNameLength;
//   - a name listed twice in one list (names are case-sensitive, as
//     Kubernetes compares them);
//   - a user written as system:serviceaccount:<namespace>:<name>: service
//     accounts go in serviceAccounts, as namespace:name;
//   - a service account that is not namespace:name with a namespace (a
//     DNS label) and a name (a DNS subdomain);
//   - more than MaxRequesters entries in a list.
//
// Render checks the same again before anything reaches a policy.
func ValidateRequesters(r *Requesters, fld *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	errs := validateRequesterSet(r.Include, fld.Child("include"))
	return append(errs, validateRequesterSet(r.Exclude, fld.Child("exclude"))...)
}

func validateRequesterSet(s RequesterSet, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	lists := []struct {
		name  string
		items []string
		check func(string, *field.Path) field.ErrorList
	}{
		{"users", s.Users, validateUserName},
		{"groups", s.Groups, validateGroupName},
		{"serviceAccounts", s.ServiceAccounts, validateServiceAccount},
	}
	for _, l := range lists {
		p := fld.Child(l.name)
		if len(l.items) > MaxRequesters {
			errs = append(errs, field.TooMany(p, len(l.items), MaxRequesters))
			continue
		}
		for i, name := range l.items {
			if e := l.check(name, p.Index(i)); len(e) > 0 {
				errs = append(errs, e...)
				continue
			}
			for j, before := range l.items[:i] {
				if before == name {
					errs = append(errs, listedTwice(p.Index(i), name, p.Index(j)))
					break
				}
			}
		}
	}
	return errs
}

func validateUserName(name string, p *field.Path) field.ErrorList {
	if errs := validateRequesterName(name, "user", p); len(errs) > 0 {
		return errs
	}
	if sa, ok := strings.CutPrefix(name, ServiceAccountPrefix); ok {
		return field.ErrorList{field.Invalid(p, name,
			"list service accounts under serviceAccounts, as namespace:name ("+sa+")")}
	}
	return nil
}

func validateGroupName(name string, p *field.Path) field.ErrorList {
	return validateRequesterName(name, "group", p)
}

// validateRequesterName applies the rules every user and group name
// follows.
func validateRequesterName(name, what string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "a "+what+" needs a name")}
	}
	var errs field.ErrorList
	if strings.TrimSpace(name) != name {
		errs = append(errs, field.Invalid(p, name, "must not begin or end with spaces"))
	}
	if hasControl(name) {
		errs = append(errs, field.Invalid(p, name, "must be one line without control characters"))
	}
	if !utf8.ValidString(name) {
		errs = append(errs, field.Invalid(p, name, "must be valid UTF-8"))
	}
	if strings.Contains(name, "$(") {
		errs = append(errs, field.Invalid(p, name, "must not contain $( (Kyverno reads $(...) as a reference)"))
	}
	if strings.ContainsAny(name, "*?") {
		errs = append(errs, field.Invalid(p, name,
			"must be an exact name: Kyverno reads * and ? as wildcards, and a requester must only ever match itself"))
	}
	return append(errs, validateText(name, MaxRequesterNameLength, p)...)
}

// validateServiceAccount checks namespace:name.
func validateServiceAccount(sa string, p *field.Path) field.ErrorList {
	if sa == "" {
		return field.ErrorList{field.Required(p, "a service account as namespace:name")}
	}
	if strings.HasPrefix(sa, ServiceAccountPrefix) {
		return field.ErrorList{field.Invalid(p, sa,
			"write namespace:name, without "+ServiceAccountPrefix)}
	}
	ns, name, ok := strings.Cut(sa, ":")
	if !ok {
		return field.ErrorList{field.Invalid(p, sa, "must be namespace:name, e.g. ci:release-pipeline")}
	}
	var msgs []string
	for _, m := range validation.IsDNS1123Label(ns) {
		msgs = append(msgs, "namespace: "+m)
	}
	for _, m := range validation.IsDNS1123Subdomain(name) {
		msgs = append(msgs, "name: "+m)
	}
	if len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, sa, strings.Join(msgs, "; "))}
	}
	return nil
}
