// kw_array.go holds the keywords that apply to arrays: prefixItems, items, contains (with minContains and
// maxContains), unevaluatedItems (core spec §10.3.1, §11.2) and minItems, maxItems, uniqueItems
// (validation spec §6.4).

package jsonschema

// prefixItemsKw (§10.3.1.1), also Draft 2019-09's array form of items: item i must match schema i.
type prefixItemsKw struct {
	subs []child
}

func (k *prefixItemsKw) eval(v *validator, inst any, ann *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr {
		return true
	}
	n := min(len(arr), len(k.subs))
	if ann != nil {
		ann.items = max(ann.items, n)
	}
	ok := true
	for i := range n {
		if !v.evalIndex(k.subs[i], arr[i], i) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	return ok
}

// itemsKw (§10.3.1.2), also Draft 2019-09's additionalItems: every item from start on must match.
type itemsKw struct {
	at    string
	kw    string
	start int // number of prefixItems
	sub   child
}

func (k *itemsKw) eval(v *validator, inst any, ann *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr {
		return true
	}
	if ann != nil {
		ann.allItems = true
	}
	ok := true
	for i := k.start; i < len(arr); i++ {
		if k.sub.n.isBool && !k.sub.n.val {
			v.failf(k.at, k.kw, "array has %d items, want at most %d", len(arr), k.start)
			return false
		}
		if !v.evalIndex(k.sub, arr[i], i) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	return ok
}

// containsKw holds contains with minContains and maxContains (§10.3.1.3, validation spec §6.4.4, §6.4.5).
// Matching items are annotations for unevaluatedItems; failures of single items are not errors.
type containsKw struct {
	at     string
	sub    child
	min    int
	minSet bool
	max    int // -1: no maxContains
}

func (k *containsKw) eval(v *validator, inst any, ann *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr {
		return true
	}
	mark := len(v.units)
	count := 0
	for i, item := range arr {
		if v.evalIndex(k.sub, item, i) {
			count++
			if ann != nil {
				ann.addIndex(i)
			} else if k.max < 0 && count >= k.min {
				break
			}
		}
	}
	v.units = v.units[:mark]
	if v.fatal != nil {
		return false
	}
	if count < k.min {
		if k.minSet {
			v.failf(k.at, "minContains", "%d %s the contains schema, want at least %d", count, plural(count, "item matches", "items match"), k.min)
		} else {
			v.failf(k.at, "contains", "no item matches the contains schema")
		}
		return false
	}
	if k.max >= 0 && count > k.max {
		v.failf(k.at, "maxContains", "%d %s the contains schema, want at most %d", count, plural(count, "item matches", "items match"), k.max)
		return false
	}
	return true
}

// unevaluatedItemsKw (§11.2): items no successful adjacent or nested keyword evaluated must match.
type unevaluatedItemsKw struct {
	at  string
	sub child
}

func (k *unevaluatedItemsKw) eval(v *validator, inst any, ann *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr || ann == nil || ann.allItems {
		return true
	}
	ok := true
	for i, item := range arr {
		v.work++
		if ann.hasItem(i) {
			continue
		}
		if k.sub.n.isBool && !k.sub.n.val {
			ok = false
			if !v.detail {
				break
			}
			v.failAtf(k.at, "unevaluatedItems", instTok{idx: i}, "unevaluated item %d is not allowed", i)
			continue
		}
		if !v.evalIndex(k.sub, item, i) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	if ok {
		ann.allItems = true
	}
	return ok
}

// itemCountKw holds minItems and maxItems (validation spec §6.4.1, §6.4.2); -1 means absent.
type itemCountKw struct {
	at       string
	min, max int
}

func (k *itemCountKw) eval(v *validator, inst any, _ *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr {
		return true
	}
	n := len(arr)
	switch {
	case k.min >= 0 && n < k.min:
		if v.detail {
			v.failf(k.at, "minItems", "array has %d %s, want at least %d", n, plural(n, "item", "items"), k.min)
		}
		return false
	case k.max >= 0 && n > k.max:
		if v.detail {
			v.failf(k.at, "maxItems", "array has %d %s, want at most %d", n, plural(n, "item", "items"), k.max)
		}
		return false
	}
	return true
}

// uniqueItemsKw (validation spec §6.4.3). Small arrays are compared pairwise; larger ones are bucketed by a
// hash consistent with equality, so the cost stays linear in the size of the array.
type uniqueItemsKw struct {
	at string
}

func (k *uniqueItemsKw) eval(v *validator, inst any, _ *annot) bool {
	arr, isArr := inst.([]any)
	if !isArr {
		return true
	}
	// Finding a duplicate hashes or compares the items whole: it reads the
	// array's size, not only its length.
	v.work += valueSize(arr)
	i, j, dup := findDuplicate(arr)
	if !dup {
		return true
	}
	v.failf(k.at, "uniqueItems", "items %d and %d are equal, want unique items", i, j)
	return false
}

func findDuplicate(arr []any) (int, int, bool) {
	if len(arr) <= 16 {
		for i := 1; i < len(arr); i++ {
			for j := range i {
				if Equal(arr[i], arr[j]) {
					return j, i, true
				}
			}
		}
		return 0, 0, false
	}
	seen := make(map[uint64][]int, len(arr))
	for i, item := range arr {
		h := hashJSON(item)
		for _, j := range seen[h] {
			if Equal(arr[j], item) {
				return j, i, true
			}
		}
		seen[h] = append(seen[h], i)
	}
	return 0, 0, false
}
