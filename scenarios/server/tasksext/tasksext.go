// Package tasksext is the server side of the tasks extension (scenarios.md S2/S7, 2026-07-28, ext-tasks/tasks.md).
package tasksext

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		negotiationScenario,
		lifecycleScenario,
		wireFieldsScenario,
		requestStateScenario,
		toolErrorScenario,
		protocolErrorScenario,
		inputScenario,
		compositionScenario,
		cancelScenario,
		notificationsScenario,
		isolationScenario,
	}
}
