package health

// wantValue is a rendered JSON value made ready to be compared with many
// live values: an object's keys and values in slices, an array's items,
// anything else as is. Comparing a live value with it is jsonEqual with
// the rendered side read from two contiguous slices instead of a map
// iterated anew for every live object.
type wantValue struct {
	kind wantKind
	// keys are an object's keys; items its values, in the same order, or
	// an array's items.
	keys  []string
	items []wantValue
	str   string
	// raw is any other value (a bool, a number, null, a nil map or list),
	// compared by jsonEqual.
	raw any
}

type wantKind uint8

const (
	wantRaw wantKind = iota
	wantString
	wantObject
	wantArray
)

// prepare turns a rendered value into a wantValue.
func prepare(v any) wantValue {
	switch x := v.(type) {
	case string:
		return wantValue{kind: wantString, str: x}
	case map[string]any:
		if x == nil {
			break
		}
		w := wantValue{kind: wantObject, keys: make([]string, 0, len(x)), items: make([]wantValue, 0, len(x))}
		for k, e := range x {
			w.keys = append(w.keys, k)
			w.items = append(w.items, prepare(e))
		}
		return w
	case []any:
		if x == nil {
			break
		}
		w := wantValue{kind: wantArray, items: make([]wantValue, len(x))}
		for i, e := range x {
			w.items[i] = prepare(e)
		}
		return w
	}
	return wantValue{raw: v}
}

// equal reports whether live marshals to the same JSON as the rendered
// value w was prepared from: jsonEqual(rendered, live).
func (w *wantValue) equal(live any) bool {
	switch w.kind {
	case wantString:
		s, ok := live.(string)
		return ok && s == w.str
	case wantObject:
		m, ok := live.(map[string]any)
		if !ok || m == nil || len(m) != len(w.keys) {
			return false
		}
		for i, k := range w.keys {
			v, ok := m[k]
			if !ok || !w.items[i].equal(v) {
				return false
			}
		}
		return true
	case wantArray:
		l, ok := live.([]any)
		if !ok || l == nil || len(l) != len(w.items) {
			return false
		}
		for i := range w.items {
			if !w.items[i].equal(l[i]) {
				return false
			}
		}
		return true
	}
	return jsonEqual(w.raw, live)
}

// wants are the rendered lists of one check made ready (wantValue) once
// they are met a second time. A render shares a spec's lists (JSON
// arrays) among the objects of its namespaces (render.Policy.Objects), so
// a plan over 2,000 namespaces compares 18,000 live specs with the same
// nine sets of lists: each is prepared once, and each live object is
// compared with slices the check has just read for the previous one. A
// list met once (a VAP binding's namespace selector, a render that shares
// nothing) is compared as it is, so a check prepares nothing it does not
// reuse.
//
// A list is known by its first element's address and its length: the
// check reads its input and changes nothing, so within one check the
// same address and length are the same list. At most maxWantLists lists
// are remembered; later ones are compared as they are.
type wants struct {
	lists map[listID]*wantValue
}

const maxWantLists = 1 << 12

type listID struct {
	first *any
	n     int
}

// equal is jsonEqual(rendered, live), reading rendered's lists through
// the prepared ones.
func (ws *wants) equal(rendered, live any) bool {
	if ws == nil {
		return jsonEqual(rendered, live)
	}
	switch x := rendered.(type) {
	case map[string]any:
		y, ok := live.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !ws.equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		if len(x) == 0 {
			break
		}
		if w := ws.list(x); w != nil {
			return w.equal(live)
		}
	}
	return jsonEqual(rendered, live)
}

// list returns the prepared form of a rendered list met before, or nil
// the first time (or when it cannot remember more).
func (ws *wants) list(l []any) *wantValue {
	id := listID{first: &l[0], n: len(l)}
	if ws.lists == nil {
		ws.lists = map[listID]*wantValue{}
	}
	w, seen := ws.lists[id]
	switch {
	case w != nil:
		return w
	case seen:
		p := prepare(l)
		ws.lists[id] = &p
		return &p
	case len(ws.lists) < maxWantLists:
		ws.lists[id] = nil
	}
	return nil
}
