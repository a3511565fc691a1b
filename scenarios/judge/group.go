package judge

import (
	"fmt"
	"slices"
)

// Group is one kind of evidence seen, maybe many times and in several
// scenarios: a report names it once with how often it was seen.
type Group[T any] struct {
	First     T
	N         int
	Scenarios []string
}

// GroupBy groups items by key, in the order each key was first seen.
// weight is how many occurrences an item stands for (at least one).
func GroupBy[T any](items []T, key, scenario func(T) string, weight func(T) int) []*Group[T] {
	var order []*Group[T]
	groups := map[string]*Group[T]{}
	for _, it := range items {
		k := key(it)
		g := groups[k]
		if g == nil {
			g = &Group[T]{First: it}
			groups[k] = g
			order = append(order, g)
		}
		g.N += max(weight(it), 1)
		if s := scenario(it); !slices.Contains(g.Scenarios, s) {
			g.Scenarios = append(g.Scenarios, s)
		}
	}
	return order
}

// Seen is " (seen N times, in M scenarios)", or "" for evidence seen once.
func (g *Group[T]) Seen() string {
	switch {
	case g.N <= 1:
		return ""
	case len(g.Scenarios) > 1:
		return fmt.Sprintf(" (seen %d times, in %d scenarios)", g.N, len(g.Scenarios))
	}
	return fmt.Sprintf(" (seen %d times)", g.N)
}
