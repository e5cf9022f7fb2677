package protectionplans

import (
	_ "github.com/google/cel-go/cel"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/kyverno/api/api/policies.kyverno.io/v1"
	_ "github.com/robfig/cron/v3"
	_ "github.com/stretchr/testify/require"
	_ "k8s.io/api/admissionregistration/v1"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/utils/clock"
	_ "k8s.io/utils/clock/testing"
	_ "sigs.k8s.io/yaml"
)
