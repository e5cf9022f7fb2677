package plan

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxPageLimit is the largest page a list answers: a larger limit is
// answered with this many and a continue token, as a Kubernetes list may
// answer fewer items than asked.
const MaxPageLimit = 500

// PageRequest is ?limit=&continue= of a list, as Kubernetes lists take
// them. The zero PageRequest asks for everything.
type PageRequest struct {
	// Limit is the most items to answer; 0 for no limit.
	Limit int
	// Continue is the token of the previous page's answer.
	Continue string
	after    pageKey
}

// pageKey is the position a continue token names: the last plan of the
// previous page, by its place in SortByName's order.
type pageKey struct {
	Name string `json:"n"`
	ID   string `json:"id"`
}

// ParsePage reads ?limit= and ?continue=. A limit that is not a whole
// number from 1, or a token this package did not write, is a
// *ValidationError on its parameter (400). A limit over MaxPageLimit is
// lowered to it.
func ParsePage(q url.Values) (PageRequest, error) {
	var r PageRequest
	var errs field.ErrorList
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			errs = append(errs, field.Invalid(field.NewPath("limit"), s, "must be a whole number from 1"))
		}
		r.Limit = min(n, MaxPageLimit)
	}
	if r.Continue = q.Get("continue"); r.Continue != "" {
		raw, err := base64.RawURLEncoding.DecodeString(r.Continue)
		if err == nil {
			err = json.Unmarshal(raw, &r.after)
		}
		if err != nil || r.after.ID == "" {
			errs = append(errs, field.Invalid(field.NewPath("continue"), r.Continue,
				"not a continue token of this list: pass the metadata.continue of the previous page as it was answered"))
		}
	}
	if len(errs) > 0 {
		return PageRequest{}, NewValidationError(errs)
	}
	return r, nil
}

// Page is one page of a list.
type Page struct {
	Items []ProtectionPlan
	// Continue is the token of the next page; "" on the last.
	Continue string
	// Remaining counts the items after this page (0 on the last).
	Remaining int64
}

// Of cuts the page r asks for out of sorted, a list in SortByName's order
// (Filter.Select's answer). A page resumes after the last plan of the
// previous one, so a plan created or deleted between two pages neither
// repeats another nor hides one that was there throughout.
func (r PageRequest) Of(sorted []ProtectionPlan) Page {
	start := 0
	if r.Continue != "" {
		start = sort.Search(len(sorted), func(i int) bool { return r.after.before(&sorted[i]) })
	}
	rest := sorted[start:]
	if r.Limit == 0 || len(rest) <= r.Limit {
		return Page{Items: rest}
	}
	last := &rest[r.Limit-1]
	raw, _ := json.Marshal(pageKey{Name: strings.ToLower(last.Spec.Name), ID: last.Name})
	return Page{Items: rest[:r.Limit], Continue: base64.RawURLEncoding.EncodeToString(raw), Remaining: int64(len(rest) - r.Limit)}
}

// before reports whether k sorts before p in SortByName's order.
func (k pageKey) before(p *ProtectionPlan) bool {
	if c := strings.Compare(k.Name, strings.ToLower(p.Spec.Name)); c != 0 {
		return c < 0
	}
	return k.ID < p.Name
}
