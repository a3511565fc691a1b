package judge

import (
	"fmt"
	"strconv"
	"strings"
)

// GuessableIDs says why a set of task ids looks guessable, or "": shorter than
// 16 characters, counting up, or varying in fewer than 12 characters. A
// heuristic: it catches only obviously guessable ids.
func GuessableIDs(ids []string) string {
	for _, id := range ids {
		if len(id) < 16 {
			return fmt.Sprintf("id %q is shorter than 16 characters", id)
		}
	}
	// Sequential: the ids are the same but for numbers that count up
	// (task-1, task-2; 0001-job, 0002-job; session-7-task-10, …-17).
	sequential := true
	var shape0 string
	var prev []int64
	for i, id := range ids {
		shape, nums, ok := counter(id)
		if !ok || (i > 0 && (shape != shape0 || !increasing(prev, nums))) {
			sequential = false
			break
		}
		shape0, prev = shape, nums
	}
	if sequential {
		return "the ids count up"
	}
	// Low entropy: the ids share all but a few characters.
	prefix := ids[0]
	for _, id := range ids[1:] {
		for !strings.HasPrefix(id, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if len(ids[0])-len(prefix) < 12 {
		return fmt.Sprintf("the ids share the prefix %q and vary in fewer than 12 characters", prefix)
	}
	return ""
}

// counter splits an id into its shape (each run of digits as #) and the
// numbers those runs spell; ok is false for ids without numbers.
func counter(id string) (string, []int64, bool) {
	var shape strings.Builder
	var nums []int64
	for i := 0; i < len(id); {
		if id[i] < '0' || id[i] > '9' {
			shape.WriteByte(id[i])
			i++
			continue
		}
		j := i
		for j < len(id) && id[j] >= '0' && id[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(id[i:j], 10, 64)
		if err != nil {
			return "", nil, false
		}
		nums = append(nums, n)
		shape.WriteByte('#')
		i = j
	}
	return shape.String(), nums, len(nums) > 0
}

// increasing compares two number tuples of the same shape.
func increasing(prev, next []int64) bool {
	for k := range min(len(prev), len(next)) {
		if next[k] != prev[k] {
			return next[k] > prev[k]
		}
	}
	return false
}
