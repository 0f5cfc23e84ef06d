package jsonout

import (
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

// DecodeMessage names the line (YAML) or field (JSON) and what belongs
// there, never the decoder's Go types.
func TestDecodeMessage(t *testing.T) {
	type doc struct {
		Alpha []float64 `json:"alpha" yaml:"alpha"`
		Order *int      `json:"order" yaml:"order"`
	}
	for text, want := range map[string]string{
		"alpha: [1, abc]\n":        `line 1: "abc" where a number belongs`,
		"alpha: [1, 1e999]\n":      `line 1: "1e999", beyond the float64 range, where a number belongs`,
		"alpha: [1, [2]]\n":        `line 1: a list where a number belongs`,
		"alpha: [1]\norder: abc\n": `line 2: "abc" where an integer belongs`,
	} {
		var d doc
		if got := DecodeMessage(yaml.Unmarshal([]byte(text), &d)); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
	var d doc
	if got, want := DecodeMessage(json.Unmarshal([]byte(`{"alpha": [1, "abc"]}`), &d)), `field alpha: a JSON string where a number belongs`; got != want {
		t.Errorf("JSON: %q, want %q", got, want)
	}
}
