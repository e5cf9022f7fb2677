package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
)

// Categories (R-P9) live in a ConfigMap of the release namespace: the
// custom ones as a JSON list under categories.json (the built-ins are the
// library's). Writes carry the ConfigMap's resourceVersion, so two
// concurrent edits cannot both win: the second answers 409.

// loadCategories reads the categories and the ConfigMap they came from
// (nil when it does not exist yet: only the built-ins).
func (s *Server) loadCategories(ctx context.Context) (plan.Categories, *corev1.ConfigMap, error) {
	cats, cm, err := s.cluster.Categories(ctx)
	switch {
	case errors.Is(err, kube.ErrInvalidContent):
		return plan.Categories{}, nil, &internalError{err}
	case err != nil:
		return plan.Categories{}, nil, unavailable("cannot read the categories", err)
	}
	return cats, cm, nil
}

// saveCategories writes cats into the ConfigMap read (creating it the
// first time), with its resourceVersion.
func (s *Server) saveCategories(ctx context.Context, cm *corev1.ConfigMap, cats plan.Categories) error {
	raw, err := json.Marshal(cats.Custom())
	if err != nil {
		return err
	}
	if cm == nil {
		cm = &corev1.ConfigMap{}
		cm.Namespace, cm.Name = s.categories.Namespace, s.categories.Name
		cm.Labels = map[string]string{"app.kubernetes.io/managed-by": "protectionplans-server"}
		cm.Data = map[string]string{categoriesKey: string(raw)}
		err = s.Client.Create(ctx, cm)
	} else {
		cm = cm.DeepCopy()
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[categoriesKey] = string(raw)
		err = s.Client.Update(ctx, cm)
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return conflictError("categories ConfigMap", s.categories.String())
	}
	return err
}

type categoryList struct {
	Items []plan.Category `json:"items"`
}

func allCategories(cats plan.Categories) categoryList {
	items := append(cats.All(plan.KindEnvironment), cats.All(plan.KindTag)...)
	return categoryList{Items: items}
}

func (s *Server) listCategories(w http.ResponseWriter, r *http.Request) {
	cats, _, err := s.loadCategories(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, allCategories(cats))
}

// changeCategories reads the categories, applies change and writes the
// result with the resourceVersion read.
func (s *Server) changeCategories(r *http.Request, change func(plan.Categories) (plan.Categories, error)) error {
	cats, cm, err := s.loadCategories(r.Context())
	if err != nil {
		return err
	}
	next, err := change(cats)
	if err != nil {
		return err
	}
	return s.saveCategories(r.Context(), cm, next)
}

func (s *Server) createCategory(w http.ResponseWriter, r *http.Request) {
	var c plan.Category
	err := decodeBody(r, &c)
	if err == nil {
		err = s.changeCategories(r, func(cats plan.Categories) (plan.Categories, error) { return cats.Add(c) })
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c.BuiltIn = false
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) updateCategory(w http.ResponseWriter, r *http.Request) {
	var c, stored plan.Category
	kind, err := plan.ParseCategoryKind(r.PathValue("kind"))
	if err == nil {
		err = decodeBody(r, &c)
	}
	if err == nil {
		err = s.changeCategories(r, func(cats plan.Categories) (next plan.Categories, err error) {
			next, stored, err = cats.Edit(kind, r.PathValue("name"), c)
			return next, err
		})
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, stored)
}

func (s *Server) deleteCategory(w http.ResponseWriter, r *http.Request) {
	kind, err := plan.ParseCategoryKind(r.PathValue("kind"))
	if err == nil {
		err = s.changeCategories(r, func(cats plan.Categories) (plan.Categories, error) { return cats.Delete(kind, r.PathValue("name")) })
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
