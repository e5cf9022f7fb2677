package edge

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/telark/protectionplans/window"
)

func TestDecide_Start(t *testing.T) {
	suspend := []Action{{Name: SuspendCronJobs}}
	tests := []struct {
		name    string
		actions []Action
		scope   Scope
		live    func(t *testing.T) []*unstructured.Unstructured
		// want lists "state kind namespace/name captured->desired" per entry.
		want    []string
		patches []string // expected patch bodies
	}{{
		name:    "a CronJob in scope is captured and suspended, the write naming its uid",
		actions: suspend,
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}
		},
		want:    []string{"Pending CronJob shop/report absent->true"},
		patches: []string{`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1"},"spec":{"suspend":true}}`},
	}, {
		name:    "a CronJob already suspended is skipped, so it stays suspended at the end",
		actions: suspend,
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", ptr(true))}
		},
		want: []string{"Skipped CronJob shop/report true->true already suspended: stays suspended, and is not touched at the end"},
	}, {
		name:    "a CronJob explicitly not suspended is captured as false",
		actions: suspend,
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", ptr(false))}
		},
		want:    []string{"Pending CronJob shop/report false->true"},
		patches: []string{`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1"},"spec":{"suspend":true}}`},
	}, {
		name:    "a CronJob outside the scope is not a participant",
		actions: suspend,
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cronJob(t, "other", "report", "u1", "5", nil)}
		},
	}, {
		name:    "an applications scope takes only its members",
		actions: suspend,
		scope:   Scope{Namespaces: []string{"shop"}, Selector: labels.SelectorFromSet(labels.Set{"app": "api"})},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)} // labelled app=web
		},
	}, {
		name:    "an applications scope of two applications takes the members of either, each in its own namespaces",
		actions: suspend,
		scope: Scope{Namespaces: []string{"shop", "cart"}, Members: []Member{
			{Namespaces: []string{"shop"}, Selector: labels.SelectorFromSet(labels.Set{"app": "web"})},
			{Namespaces: []string{"cart"}, Selector: labels.SelectorFromSet(labels.Set{"app": "api"})},
		}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			// both labelled app=web: only the one in shop is a member
			return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil), cronJob(t, "cart", "sweep", "u2", "5", nil)}
		},
		want:    []string{"Pending CronJob shop/report absent->true"},
		patches: []string{`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1"},"spec":{"suspend":true}}`},
	}, {
		name:    "an object being deleted is skipped",
		actions: suspend,
		live: func(t *testing.T) []*unstructured.Unstructured {
			u := cronJob(t, "shop", "report", "u1", "5", nil)
			u.SetDeletionTimestamp(ptr(metav1Now()))
			return []*unstructured.Unstructured{u}
		},
		want: []string{"Skipped CronJob shop/report absent->absent being deleted"},
	}, {
		name:    "an Argo CD Application deploying into the scope from argocd has its automated sync paused",
		actions: []Action{{Name: PauseArgoCDSync}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop","namespace":"argocd","uid":"a1","resourceVersion":"9"},"spec":{"destination":{"namespace":"shop"},"syncPolicy":{"automated":{"prune":true}}}}`)}
		},
		want:    []string{"Pending Application argocd/shop absent->false"},
		patches: []string{`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop","namespace":"argocd","uid":"a1"},"spec":{"syncPolicy":{"automated":{"enabled":false}}}}`},
	}, {
		name:    "an Argo CD Application without automated sync is skipped",
		actions: []Action{{Name: PauseArgoCDSync}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop","namespace":"argocd","uid":"a1"},"spec":{"destination":{"namespace":"shop"}}}`)}
		},
		want: []string{"Skipped Application argocd/shop absent->absent no automated sync to pause"},
	}, {
		name:    "an Argo CD Application owned by an ApplicationSet is skipped with the reason",
		actions: []Action{{Name: PauseArgoCDSync}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop-eu","namespace":"argocd","uid":"a1","ownerReferences":[{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","name":"shops","uid":"s1"}]},"spec":{"destination":{"namespace":"shop"},"syncPolicy":{"automated":{}}}}`)}
		},
		want: []string{"Skipped Application argocd/shop-eu absent->absent owned by ApplicationSet shops, whose controller rewrites the Application from its template: pause its generator or template instead"},
	}, {
		name:    "an Argo CD Application deploying elsewhere is not a participant",
		actions: []Action{{Name: PauseArgoCDSync}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"x","namespace":"shop","uid":"a1"},"spec":{"destination":{"namespace":"other"},"syncPolicy":{"automated":{}}}}`)}
		},
	}, {
		name:    "a Flux Kustomization in flux-system targeting the scope and a HelmRelease in it are suspended",
		actions: []Action{{Name: SuspendFlux}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				obj(t, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"shop","namespace":"flux-system","uid":"k1"},"spec":{"targetNamespace":"shop","suspend":false}}`),
				obj(t, `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"redis","namespace":"shop","uid":"h1"},"spec":{}}`),
				obj(t, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"infra","namespace":"flux-system","uid":"k2"},"spec":{}}`),
			}
		},
		want: []string{"Pending HelmRelease shop/redis absent->true", "Pending Kustomization flux-system/shop false->true"},
		patches: []string{
			`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"redis","namespace":"shop","uid":"h1"},"spec":{"suspend":true}}`,
			`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"shop","namespace":"flux-system","uid":"k1"},"spec":{"suspend":true}}`,
		},
	}, {
		name:    "scale-to captures the replicas and writes the Scale subresource",
		actions: []Action{{Name: ScaleTo, Replicas: ptr(int32(0))}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deployment(t, "shop", "web", "d1", 3)}
		},
		want:    []string{"Pending Deployment shop/web 3->0"},
		patches: []string{`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"shop","uid":"d1"},"spec":{"replicas":0}}`},
	}, {
		name:    "scale-to skips a Deployment a HorizontalPodAutoscaler scales, and one already at the count",
		actions: []Action{{Name: ScaleTo, Replicas: ptr(int32(1))}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				deployment(t, "shop", "web", "d1", 3),
				deployment(t, "shop", "api", "d2", 1),
				obj(t, `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop","uid":"x"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}}`),
			}
		},
		want: []string{
			"Skipped Deployment shop/api 1->1 already at 1 replicas",
			"Skipped Deployment shop/web 3->1 scaled by HorizontalPodAutoscaler web, which would undo the scale: left alone",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, Input{Actions: tt.actions, Scope: tt.scope, Active: active, Live: tt.live(t)})
			require.NotNil(t, d.Journal, "a start in an active window always writes its journal")
			assert.True(t, d.Finalizer)
			var got []string
			for _, e := range d.Journal.Entries {
				s := string(e.State) + " " + e.Target.Kind + " " + e.Target.Namespace + "/" + e.Target.Name + " " + e.Captured.String() + "->" + e.Desired.String()
				if e.Reason != "" {
					s += " " + e.Reason
				}
				got = append(got, s)
				if e.State == Skipped {
					assert.Equal(t, SkipStart, e.Skip, "an entry skipped at the start says so, for the report")
				}
			}
			assert.Equal(t, tt.want, got)
			var bodies []string
			for _, p := range d.Patches {
				bodies = append(bodies, string(p.Body))
				assert.False(t, p.Restore)
				assert.Equal(t, DefaultFieldManager, p.FieldManager)
			}
			assert.Equal(t, tt.patches, bodies)
			if len(tt.patches) == 0 {
				assert.Equal(t, Started, d.Journal.Phase, "nothing to patch: started at once")
			} else {
				assert.Equal(t, Starting, d.Journal.Phase)
			}
			assert.Equal(t, t0, d.Journal.Start)
		})
	}
}

func metav1Now() metav1.Time { return metav1.Time{Time: t0} }

func TestDecide_Limits(t *testing.T) {
	var live []*unstructured.Unstructured
	for i := range 5 {
		live = append(live, cronJob(t, "shop", "job-"+string(rune('a'+i)), "u"+string(rune('a'+i)), "1", nil))
	}
	tests := []struct {
		name   string
		limits Limits
		what   string
	}{
		{"more participants than the limit fail before any mutation", Limits{MaxParticipants: 4}, "participants"},
		{"a journal larger than the limit fails before any mutation", Limits{MaxJournalBytes: 600}, "journal bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Decide(Input{Plan: planRef, Actions: []Action{{Name: SuspendCronJobs}}, Scope: scope, Active: active, Live: live, Limits: tt.limits, Now: t0})
			var le *LimitError
			require.True(t, errors.As(err, &le), "got %v", err)
			assert.Equal(t, tt.what, le.What)
			assert.Equal(t, http.StatusRequestEntityTooLarge, le.HTTPCode())
			assert.Nil(t, d.Journal)
			assert.Empty(t, d.Patches)
		})
	}
	t.Run("the defaults admit 5 participants", func(t *testing.T) {
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: live})
		assert.Len(t, d.Patches, 5)
	})
}

func TestDecide_NothingToDo(t *testing.T) {
	live := func(t *testing.T) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}
	}
	t.Run("a window missed entirely replays nothing", func(t *testing.T) {
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Live: live(t), Now: t1.Add(time.Hour)})
		assert.Equal(t, Decision{}, d)
	})
	t.Run("a plan without actions does nothing in its window", func(t *testing.T) {
		d := decide(t, Input{Active: active, Live: live(t)})
		assert.Equal(t, Decision{}, d)
	})
	t.Run("a second pass in the same window changes nothing, and objects that match later join the next window", func(t *testing.T) {
		first := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: live(t)})
		j := Record(*first.Journal, []Result{{Entry: 0, Outcome: Succeeded}})
		require.Equal(t, Started, j.Phase)
		later := append(live(t), cronJob(t, "shop", "new", "u2", "1", nil))
		_ = unstructured.SetNestedField(later[0].Object, true, "spec", "suspend")
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Journal: &j, Live: later, Now: t0.Add(5 * time.Hour)})
		assert.Nil(t, d.Journal, "no write in the steady state")
		assert.Empty(t, d.Patches)
		assert.True(t, d.Finalizer)
	})
}

// started returns the journal of a start of one CronJob (captured absent)
// whose patch was confirmed.
func started(t *testing.T, overwrite bool) Journal {
	t.Helper()
	d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs, Overwrite: overwrite}}, Active: active, Live: []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}})
	return Record(*d.Journal, []Result{{Entry: 0, Outcome: Succeeded}})
}

func TestDecide_Crashes(t *testing.T) {
	live := cronJob(t, "shop", "report", "u1", "5", nil)
	first := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: []*unstructured.Unstructured{live}})
	persisted := *first.Journal

	t.Run("a crash between the journal and the patch: the next pass patches once, from the same capture", func(t *testing.T) {
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Journal: &persisted, Live: []*unstructured.Unstructured{live}, Now: t0.Add(3 * time.Minute)})
		require.Len(t, d.Patches, 1)
		assert.JSONEq(t, string(first.Patches[0].Body), string(d.Patches[0].Body))
		assert.Nil(t, d.Journal, "the journal is unchanged: nothing new to persist before the patch")
		j := Record(persisted, []Result{{Entry: 0, Outcome: Succeeded}})
		assert.Equal(t, Started, j.Phase)
		assert.Equal(t, "absent", j.Entries[0].Captured.String())
	})
	t.Run("a crash between the patch and the journal's update: no second capture, the captured value stays the original", func(t *testing.T) {
		patched := cronJob(t, "shop", "report", "u1", "6", ptr(true))
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Journal: &persisted, Live: []*unstructured.Unstructured{patched}, Now: t0.Add(3 * time.Minute)})
		assert.Empty(t, d.Patches)
		require.NotNil(t, d.Journal)
		assert.Equal(t, Started, d.Journal.Phase)
		assert.Equal(t, Applied, d.Journal.Entries[0].State)
		assert.Equal(t, "absent", d.Journal.Entries[0].Captured.String(), "never our own patched value")
		assert.Equal(t, t0.Add(time.Minute), d.Journal.CapturedAt)
		// And the end restores the original.
		end := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: d.Journal, Live: []*unstructured.Unstructured{patched}, Now: t1})
		require.Len(t, end.Patches, 1)
		assert.JSONEq(t, `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"6"}}`, string(end.Patches[0].Body))
	})
	t.Run("an object deleted before the start's patch landed is skipped", func(t *testing.T) {
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Journal: &persisted, Now: t0.Add(3 * time.Minute)})
		require.NotNil(t, d.Journal)
		assert.Equal(t, Skipped, d.Journal.Entries[0].State)
		assert.Equal(t, "missing before the start's patch", d.Journal.Entries[0].Reason)
		assert.Equal(t, SkipStart, d.Journal.Entries[0].Skip)
		assert.Equal(t, Started, d.Journal.Phase)
	})
}

func TestDecide_Restore(t *testing.T) {
	suspended := func(rv string) *unstructured.Unstructured { return cronJob(t, "shop", "report", "u1", rv, ptr(true)) }
	tests := []struct {
		name      string
		overwrite bool
		live      []*unstructured.Unstructured
		active    *window.Interval
		now       time.Time
		patch     string // "" when no patch
		state     State
		reason    string
		skip      Skip
	}{{
		name:  "at the end the captured value is restored, guarded by uid and resourceVersion; absent is restored by leaving the field out",
		live:  []*unstructured.Unstructured{suspended("8")},
		now:   t1,
		patch: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"8"}}`,
		state: Applied,
	}, {
		name:   "an object replaced during the window (same name, new uid) is skipped and recorded",
		live:   []*unstructured.Unstructured{cronJob(t, "shop", "report", "u9", "3", ptr(true))},
		now:    t1,
		state:  Skipped,
		reason: "replaced (uid u1, now u9) at the end: nothing restored",
		skip:   SkipReplaced,
	}, {
		name:   "an object deleted during the window is skipped and recorded",
		now:    t1,
		state:  Skipped,
		reason: "missing at the end: nothing restored",
		skip:   SkipMissing,
	}, {
		name:   "a value someone changed during the window is kept",
		live:   []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "9", ptr(false))},
		now:    t1,
		state:  Skipped,
		reason: "changed during the window to false: kept (the action does not overwrite; captured absent)",
		skip:   SkipChanged,
	}, {
		name:      "an action that overwrites restores the captured value over a change",
		overwrite: true,
		live:      []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "9", ptr(false))},
		now:       t1,
		patch:     `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"9"}}`,
		state:     Applied,
	}, {
		name:   "restores pending from one window finish before the next window starts",
		live:   []*unstructured.Unstructured{suspended("8")},
		active: &window.Interval{Start: t1.Add(14 * time.Hour), End: t1.Add(24 * time.Hour)},
		now:    t1.Add(15 * time.Hour),
		patch:  `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"8"}}`,
		state:  Applied,
	}, {
		name:  "a plan canceled during its window restores at once",
		live:  []*unstructured.Unstructured{suspended("8")},
		now:   t0.Add(2 * time.Hour),
		patch: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1","resourceVersion":"8"}}`,
		state: Applied,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := started(t, tt.overwrite)
			d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: tt.active, Journal: &j, Live: tt.live, Now: tt.now})
			if tt.patch == "" {
				assert.Empty(t, d.Patches)
				assert.True(t, d.DeleteJournal, "every entry settled: the journal goes")
				require.NotNil(t, d.Finished)
				assert.Equal(t, Done, d.Finished.Phase)
				assert.Equal(t, tt.state, d.Finished.Entries[0].State)
				assert.Equal(t, tt.reason, d.Finished.Entries[0].Reason)
				assert.Equal(t, tt.skip, d.Finished.Entries[0].Skip)
				require.NotNil(t, d.Finished.RestoringSince, "the report says when the restore began")
				assert.Equal(t, tt.now, *d.Finished.RestoringSince)
				assert.False(t, d.Finalizer)
				return
			}
			require.Len(t, d.Patches, 1)
			assert.True(t, d.Patches[0].Restore)
			assert.JSONEq(t, tt.patch, string(d.Patches[0].Body))
			require.NotNil(t, d.Journal, "Restoring is persisted before the restore")
			assert.Equal(t, Restoring, d.Journal.Phase)
			require.NotNil(t, d.Journal.RestoringSince)
			assert.Equal(t, tt.now, *d.Journal.RestoringSince)
			assert.True(t, d.Finalizer)
			done := Record(*d.Journal, []Result{{Entry: 0, Outcome: Succeeded}})
			assert.Equal(t, Done, done.Phase)
			assert.Equal(t, Restored, done.Entries[0].State)
			assert.False(t, done.RestoresPending())
			next := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: tt.active, Journal: &done, Live: tt.live, Now: tt.now})
			assert.True(t, next.DeleteJournal)
			assert.False(t, next.Finalizer)
		})
	}
}

func TestDecide_RestoreConflicts(t *testing.T) {
	t.Run("a restore that hits a conflict is decided again from a fresh read at the next pass", func(t *testing.T) {
		j := started(t, false)
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: &j, Live: []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "8", ptr(true))}, Now: t1})
		j = Record(*d.Journal, []Result{{Entry: 0, Outcome: Conflict, Message: "the object has been modified"}})
		assert.Equal(t, Restoring, j.Phase)
		assert.Equal(t, Applied, j.Entries[0].State)
		assert.Equal(t, "Conflict: the object has been modified", j.Entries[0].LastError)
		d = decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: &j, Live: []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "11", ptr(true))}, Now: t1.Add(time.Minute)})
		require.Len(t, d.Patches, 1)
		assert.Contains(t, string(d.Patches[0].Body), `"resourceVersion":"11"`)
	})
	t.Run("an ownership conflict fails the restore, keeps the journal and the finalizer until abandoned", func(t *testing.T) {
		j := started(t, false)
		live := []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "8", ptr(true))}
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: &j, Live: live, Now: t1})
		j = Record(*d.Journal, []Result{{Entry: 0, Outcome: OwnershipConflict, Field: ".spec.suspend", Manager: "kubectl-edit"}})
		assert.Equal(t, Failed, j.Entries[0].State)
		assert.Equal(t, `restore failed: field .spec.suspend is owned by field manager "kubectl-edit" (not forced)`, j.Entries[0].Reason)
		assert.True(t, j.RestoresPending())
		d = decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: &j, Live: live, Now: t1.Add(time.Minute)})
		assert.Empty(t, d.Patches)
		assert.False(t, d.DeleteJournal)
		assert.True(t, d.Finalizer, "a failed restore blocks the plan's deletion")
		a := Abandon(j, "alice")
		assert.Equal(t, Done, a.Phase)
		assert.False(t, a.RestoresPending())
		assert.True(t, strings.HasPrefix(a.Entries[0].Reason, "abandoned by alice after: restore failed"))
		assert.Equal(t, SkipAbandoned, a.Entries[0].Skip)
	})
	t.Run("a start refused by another plan's freeze changes nothing and is not restored", func(t *testing.T) {
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}})
		j := Record(*d.Journal, []Result{{Entry: 0, Outcome: Refused, Message: `admission webhook denied the request: frozen by plan "other"`}})
		assert.Equal(t, Started, j.Phase)
		assert.Equal(t, Skipped, j.Entries[0].State)
		assert.Equal(t, SkipStart, j.Entries[0].Skip)
		assert.Contains(t, j.Entries[0].Reason, `frozen by plan "other"`)
	})
	t.Run("a start that failed for a reason retrying can fix is retried next pass", func(t *testing.T) {
		live := []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", nil)}
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: live})
		j := Record(*d.Journal, []Result{{Entry: 0, Outcome: Errored, Message: "etcdserver: request timed out"}})
		assert.Equal(t, Starting, j.Phase)
		assert.Equal(t, 1, j.Entries[0].Attempts)
		d = decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Journal: &j, Live: live, Now: t0.Add(2 * time.Minute)})
		assert.Len(t, d.Patches, 1)
	})
}

func TestSkipSaysTheStep(t *testing.T) {
	live := func(suspend *bool) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{cronJob(t, "shop", "report", "u1", "5", suspend)}
	}
	t.Run("a start whose patch never landed is skipped at the end as not landed", func(t *testing.T) {
		first := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: live(nil)})
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: first.Journal, Live: live(nil), Now: t1})
		require.NotNil(t, d.Finished)
		assert.Equal(t, SkipNotLanded, d.Finished.Entries[0].Skip)
	})
	t.Run("an object gone when its restore is sent is skipped as missing", func(t *testing.T) {
		j := started(t, false)
		d := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Journal: &j, Live: live(ptr(true)), Now: t1})
		j = Record(*d.Journal, []Result{{Entry: 0, Outcome: NotFound}})
		assert.Equal(t, SkipMissing, j.Entries[0].Skip)
		assert.Equal(t, Done, j.Phase)
	})
	t.Run("an object gone when its start is sent is skipped at the start", func(t *testing.T) {
		first := decide(t, Input{Actions: []Action{{Name: SuspendCronJobs}}, Active: active, Live: live(nil)})
		j := Record(*first.Journal, []Result{{Entry: 0, Outcome: NotFound}})
		assert.Equal(t, SkipStart, j.Entries[0].Skip)
	})
}
