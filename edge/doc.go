// Package edge decides a plan's edge actions: changes made to the cluster
// when a freeze starts and undone exactly when it ends, so that what would
// fight the freeze (a CronJob starting Jobs, Argo CD's automated sync, a
// Flux reconciliation) stops for its length, and a maintenance window can
// scale workloads down and back.
//
// The actions come from a fixed catalog (Catalog), as templates do. The
// semantics follow seed 004 (Capsule's ChangeWindow):
//
//   - "Actions snapshot matching objects at the first reconciliation in an
//     active window. Newly matching resources join the next window.
//     Entirely missed windows do not replay obsolete start actions.
//     Restores pending from an earlier window finish before a new window can
//     begin." Decide captures the participants once, into a Journal.
//   - "Capture uses RFC 6901 JSON pointers and is persisted in a private
//     Secret before any mutation. A window supports at most 256
//     action/resource participants and a 512 KiB journal. Limits fail before
//     workload mutation." A Decision that carries a Journal must be persisted
//     (JournalSecret) before any of its Patches is sent; limits are a
//     *LimitError and no journal.
//   - "End actions use recorded UIDs regardless of label changes. Missing
//     resources and replacements are skipped. UID/resourceVersion checks
//     guard concurrent writes. force defaults to false: ownership conflicts
//     are errors, never implicit force." Restores name the recorded UID and
//     the resourceVersion last seen; a value someone changed during the
//     window is left alone unless the action says Overwrite.
//   - "Deletion triggers restoration through a finalizer; failed restores
//     retain their journal and block deletion." Decision.Finalizer says
//     whether the plan must keep its finalizer; Abandon gives up a failed
//     restore explicitly.
//
// Crashes: the journal is written before the first patch, and the start
// captures values only when no journal exists for the window. A crash
// between the journal and a patch leaves an entry Pending, which the next
// pass patches; a crash between a patch and the journal's update leaves it
// Pending too, and the next pass finds the live value already patched and
// marks it Applied: the captured value is always the one from before the
// window, never our own.
//
// Patches are server-side apply configurations under the caller's field
// manager, never forced unless the action says Force. A restore to a value that was absent applies a
// configuration without the field, which removes it when the field manager
// was its only owner. Restoring a value does not restore its previous
// ownership.
//
// Argo CD Applications owned by an ApplicationSet are skipped with a
// reason: the ApplicationSet controller rewrites their spec from its
// template, so a pause written to the Application would not hold, and
// pausing the template would pause every Application it generates, inside
// the scope or not. Workloads a HorizontalPodAutoscaler scales are skipped
// by scale-to with a reason: the HPA is a control-plane controller that no
// freeze stops, and it would undo the scale within seconds.
//
// The journal is also the record of what happened: every entry keeps its
// State and Reason, a Skipped entry says by its Skip code whether the start
// or the restore skipped it, and the journal says when the restore began
// (RestoringSince). Decision.Finished is the journal as it ended, for the
// final report (package report's edge section).
//
// The package is pure: the embedder gathers the live objects, persists the
// journal, sends the patches and reports their results (Record).
package edge
