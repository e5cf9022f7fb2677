package edge

import (
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResultOf classifies the API server's answer to the Patch for entry:
// nil is Succeeded; the rest by the status's code and causes, never by
// its message text.
//
//   - 404 is NotFound;
//   - 409 with a field-manager conflict cause (server-side apply's "Apply
//     failed with N conflicts") is OwnershipConflict, naming the field and
//     the manager that owns it; any other 409 (a uid or resourceVersion
//     precondition) is Conflict;
//   - 403, 400 and 422 are Refused: admission (a webhook's or a policy's
//     denial) or the executor's RBAC said no, and sending it again
//     unchanged would be refused again;
//   - anything else (a timeout, 429, 5xx, a transport error) is Errored.
func ResultOf(entry int, err error) Result {
	r := Result{Entry: entry, Outcome: Succeeded}
	if err == nil {
		return r
	}
	r.Message = err.Error()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		r.Outcome = Errored
		return r
	}
	st := status.Status()
	switch st.Code {
	case http.StatusNotFound:
		r.Outcome = NotFound
	case http.StatusConflict:
		r.Outcome = Conflict
		var fields, managers []string
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				if c.Type == metav1.CauseTypeFieldManagerConflict {
					fields = append(fields, c.Field)
					managers = append(managers, managerOf(c.Message))
				}
			}
		}
		if len(fields) > 0 {
			r.Outcome, r.Field, r.Manager = OwnershipConflict, strings.Join(fields, ", "), strings.Join(managers, ", ")
		}
	case http.StatusForbidden, http.StatusBadRequest, http.StatusUnprocessableEntity:
		r.Outcome = Refused
	default:
		r.Outcome = Errored
	}
	return r
}

// managerOf reads the manager a conflict cause names: the API server
// writes `conflict with "NAME"`, then for some managers ` with subresource
// "scale"` or ` using apps/v1`; the cause has no field of its own for it.
// An unexpected shape gives the whole message, never a guess.
func managerOf(msg string) string {
	const lead = `conflict with "`
	i := strings.Index(msg, lead)
	if i < 0 {
		return msg
	}
	rest := msg[i+len(lead):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return msg
	}
	return rest[:j]
}
