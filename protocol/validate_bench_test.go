package protocol_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// floodParams is the params of the i-th of a flood of 8 KiB notifications,
// each distinct (so no memo helps): a resource list change's worth of
// nested structure, as a server that floods its client sends.
func floodParams(i int) json.RawMessage {
	var resources []string
	for j := 0; len(strings.Join(resources, ",")) < 8<<10; j++ {
		resources = append(resources, fmt.Sprintf(`{"uri":"test://flood/%d/%d","name":"r%d","mimeType":"text/plain","annotations":{"audience":["user"],"priority":0.5}}`, i, j, j))
	}
	return json.RawMessage(fmt.Sprintf(`{"progressToken":"t%d","progress":%d,"total":100000,"message":"flood","_meta":{"items":[%s]}}`, i, i, strings.Join(resources, ",")))
}

// floodSeq keeps every run's notifications distinct from an earlier run's
// in the same process (-count), which the memo would otherwise answer.
var floodSeq int

// BenchmarkValidateParamsFlood: one distinct 8 KiB notification validated
// per iteration, as the client session checks each a flooding server sends.
func BenchmarkValidateParamsFlood(b *testing.B) {
	params := make([]json.RawMessage, max(b.N, 1))
	for i := range params {
		floodSeq++
		params[i] = floodParams(floodSeq)
	}
	b.SetBytes(int64(len(params[0])))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := protocol.ValidateParams(protocol.V20251125, "notifications/progress", params[i%len(params)]); err != nil {
			b.Fatal(err)
		}
	}
}
