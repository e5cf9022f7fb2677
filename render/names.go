package render

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// maxNameLength is the longest policy name: a DNS label, which is also what
// Kyverno puts in report labels.
const maxNameLength = 63

// nameHashLength is the number of hex digits of the plan ID's hash in a
// shortened name (40 bits).
const nameHashLength = 10

// hashedSuffix matches a base that ends like a shortened name's hash.
var hashedSuffix = regexp.MustCompile(`-[0-9a-f]{10}$`)

// PolicyName returns the name of the policy rendering template for the plan
// whose ID (metadata.name) is planID, in every namespace and for every
// target. It is a DNS label of at most 63 characters:
//
//   - "<plan ID>-<template>" when that fits and the plan ID has no dot;
//   - otherwise "<prefix>-<hash>-<template>", where prefix is the plan ID
//     (dots as dashes) cut to fit and hash the first 10 hex digits of the
//     SHA-256 of the full plan ID.
//
// Two plans never share a name: plain names are distinct because plan IDs
// are, and no template name is another's suffix after a dash (a test keeps
// it so); a plan ID that itself ends like "-<10 hex digits>" always takes
// the hashed form, so plain and hashed names cannot meet; and two hashed
// names meet only if both the prefixes and 40 bits of hash agree.
func PolicyName(planID, template string) string {
	base := strings.ReplaceAll(planID, ".", "-")
	if base == planID && len(base)+1+len(template) <= maxNameLength && !hashedSuffix.MatchString(base) {
		return base + "-" + template
	}
	sum := sha256.Sum256([]byte(planID))
	h := hex.EncodeToString(sum[:])[:nameHashLength]
	budget := maxNameLength - len(template) - 1 - nameHashLength - 1
	if len(base) > budget {
		base = base[:budget]
	}
	base = strings.TrimRight(base, "-")
	if base == "" {
		return h + "-" + template
	}
	return base + "-" + h + "-" + template
}
