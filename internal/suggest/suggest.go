// Package suggest offers the known names closest to a misspelt one.
package suggest

import (
	"fmt"
	"slices"
	"strings"
)

// DidYouMean is ` (did you mean "x"?)` for the known names closest to a
// misspelt one (at most a third of its letters off), or "".
func DidYouMean(name string, known []string) string {
	best, bestDist := []string(nil), len(name)/3+1
	for _, k := range known {
		d := EditDistance(name, k)
		switch {
		case d < bestDist:
			best, bestDist = []string{k}, d
		case d == bestDist && len(best) > 0:
			best = append(best, k)
		}
	}
	if len(best) == 0 {
		return ""
	}
	slices.Sort(best)
	if len(best) > 3 {
		best = best[:3]
	}
	return fmt.Sprintf(" (did you mean %q?)", strings.Join(best, `" or "`))
}

// EditDistance is the Levenshtein distance of a and b, in bytes (ids are
// ASCII).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
