package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/window"
)

func calendarWindow(refs ...window.ConfigMapKeyRef) window.Spec {
	s := window.Spec{Type: window.Permanent}
	for _, r := range refs {
		s.Except = append(s.Except, window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: r}})
	}
	return s
}

func TestCalendars(t *testing.T) {
	de := window.ConfigMapKeyRef{Name: "holidays", Key: "de.ics"}
	at := window.ConfigMapKeyRef{Name: "holidays", Key: "at.ics"}
	bin := window.ConfigMapKeyRef{Name: "holidays", Key: "fr.ics"}
	gone := window.ConfigMapKeyRef{Name: "gone", Key: "x.ics"}
	holidays := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "telark-system", Name: "holidays"},
		Data: map[string]string{"de.ics": "BEGIN:VCALENDAR"}, BinaryData: map[string][]byte{"fr.ics": []byte("BEGIN:VCALENDAR\r\n")}}
	elsewhere := configMap("team-a", "gone", map[string]string{"x.ics": "BEGIN:VCALENDAR"})
	for _, tc := range []struct {
		name string
		spec window.Spec
		want map[window.ConfigMapKeyRef][]byte
	}{
		{name: "a window without calendars reads nothing", spec: calendarWindow()},
		{name: "keys of data and binaryData are read from the release namespace; a missing key or ConfigMap is left out",
			spec: calendarWindow(de, at, bin, gone),
			want: map[window.ConfigMapKeyRef][]byte{de: []byte("BEGIN:VCALENDAR"), bin: []byte("BEGIN:VCALENDAR\r\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(newCluster(t, nil, holidays, elsewhere), Facts{ReleaseNamespace: "telark-system"})
			got, err := r.Calendars(context.Background(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Calendars (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalendarsUnreadable(t *testing.T) {
	c := newCluster(t, nil)
	failing := interceptor.NewClient(c.WithWatch, interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "holidays", errors.New("RBAC"))
	}})
	_, err := New(failing, Facts{ReleaseNamespace: "telark-system"}).Calendars(context.Background(),
		calendarWindow(window.ConfigMapKeyRef{Name: "holidays", Key: "de.ics"}))
	if !apierrors.IsForbidden(err) {
		t.Errorf("Calendars: %v, want the wrapped read error", err)
	}
}
