package tasks

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		cancelDuringElicitationScenario,
		refusedElicitationScenario,
		isolationScenario,
		toolNegotiationScenario,
		taskResultScenario,
		failingTaskScenario,
		taskListScenario,
		terminalCancelScenario,
		unknownTaskScenario,
		statusScenario,
	}
}
