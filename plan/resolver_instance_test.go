package plan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestInstanceLabelResolver(t *testing.T) {
	objects := []LabeledObject{
		{Kind: "Deployment", Namespace: "shop", Name: "checkout", Labels: map[string]string{InstanceLabel: "checkout"}},
		{Kind: "ConfigMap", Namespace: "shop", Name: "checkout-config", Labels: map[string]string{InstanceLabel: "checkout"}},
		{Kind: "StatefulSet", Namespace: "shop-batch", Name: "settle", Labels: map[string]string{InstanceLabel: "checkout"}},
		{Kind: "Deployment", Namespace: "shop", Name: "cart", Labels: map[string]string{InstanceLabel: "cart"}},
		{Kind: "Deployment", Namespace: "shop", Name: "unlabelled"},
		{Kind: "Deployment", Namespace: "other", Name: "x", Labels: map[string]string{"team": "checkout"}},
	}
	tests := map[string]struct {
		resolver InstanceLabelResolver
		name     string
		want     Application
		notFound bool
	}{
		"an application is every object carrying its instance label, sorted": {
			resolver: InstanceLabelResolver{Objects: objects},
			name:     "checkout",
			want: Application{
				Name:       "checkout",
				Namespaces: []string{"shop", "shop-batch"},
				Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{InstanceLabel: "checkout"}},
				Members: []ResourceRef{
					{Kind: "ConfigMap", Name: "checkout-config", Namespace: "shop"},
					{Kind: "Deployment", Name: "checkout", Namespace: "shop"},
					{Kind: "StatefulSet", Name: "settle", Namespace: "shop-batch"},
				},
			},
		},
		"another label key can be the convention": {
			resolver: InstanceLabelResolver{Objects: objects, Label: "team"},
			name:     "checkout",
			want: Application{
				Name:       "checkout",
				Namespaces: []string{"other"},
				Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{"team": "checkout"}},
				Members:    []ResourceRef{{Kind: "Deployment", Name: "x", Namespace: "other"}},
			},
		},
		"an application nobody carries the label of is not found": {
			resolver: InstanceLabelResolver{Objects: objects},
			name:     "ghost",
			notFound: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tc.resolver.ResolveApplication(tc.name)
			if tc.notFound {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrApplicationNotFound))
				assert.Equal(t, "no object is labelled app.kubernetes.io/instance=ghost: application not found", err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
