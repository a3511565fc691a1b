package auth

// Since is the first version of a check whose rule is younger than some
// version its scenario runs at ("" for the others).
func Since(checkID string) string { return since[checkID] }
