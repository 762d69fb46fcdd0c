package mappings

import (
	"encoding/json"
	"strings"

	"github.com/auditlog/auditlog/mappings/internal/eventmapping"
)

// EventsUpgrade is the mapping Bootstrap puts on the data streams that
// exist already: Events without the fields whose doc values were dropped
// after streams were made with them (eventmapping.NoDocValuesSince).
// A mapping put on an index merges into the one it has, so a field left
// out stays as the index has it, where naming it with other doc values
// would be refused ("Cannot update parameter [doc_values]").
func EventsUpgrade() json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(events, &m); err != nil {
		panic("mappings: events.json: " + err.Error()) // generated and tested
	}
	for _, name := range eventmapping.NoDocValuesSince {
		obj := m
		path := strings.Split(name, ".")
		for _, p := range path[:len(path)-1] {
			obj, _ = obj["properties"].(map[string]any)[p].(map[string]any)
		}
		delete(obj["properties"].(map[string]any), path[len(path)-1])
	}
	b, _ := json.Marshal(m)
	return b
}
