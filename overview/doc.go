// Package overview decides what a portal shows about a plan: its row in a
// list (phase, mode, window, next edge, scope, and a health label read
// from the stored PoliciesHealthy condition), the labels of phases and
// timeline events, instants in UTC and relative to now, the details of a
// plan's page (templates, exclusions, the timeline newest first), which
// actions the caller is offered, who may decide its approval, a health
// refresh and a page of its violations feed. An embedder renders these
// values (as HTML, JSON or text); the decisions and their tests are here.
//
//	row := overview.RowOf(p)          // row.Health.Label: "Healthy", "Policies missing", ...
//	at := overview.At(row.NextEdge, now) // at.Abs "Mon 23 Nov 2026 00:00 UTC", at.Rel "in 2d 4h"
//	offers := overview.OffersFor(caller, p, true, now)
//
// Like the rest of the library it reads no clock and does no I/O.
package overview
