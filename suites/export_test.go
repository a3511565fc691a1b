package suites

var (
	ExpandOfficialNames = expandOfficialNames
	CheckBaselineEntry  = checkBaselineEntry
)
