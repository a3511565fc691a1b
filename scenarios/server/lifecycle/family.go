package lifecycle

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		initializeScenario,
		versionNegotiationScenario,
		pingScenario,
		beforeInitializeScenario,
		malformedJSONScenario,
		invalidRequestScenario,
		unknownMethodScenario,
		idEchoScenario,
		notificationScenario,
		discoverScenario,
		unsupportedVersionScenario,
		missingMetaScenario,
		requestMetaScenario,
		missingCapabilityScenario,
		headerMismatchScenario,
		wireSchemaScenario,
	}
}
