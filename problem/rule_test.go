package problem

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

const ruleHead = "privacy: {measure: pml, epsilon: 1}\n"

func TestRuleGridLoadsWithoutDenseUtility(t *testing.T) {
	doc := ruleHead + "prior: uniform\nutility_rule:\n  metric: euclidean\n  grid: {width: 3, height: 2, cell: 2}\n"
	p, err := Parse([]byte(doc), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if p.Utility != nil || p.Order != nil {
		t.Fatal("loading a rule filled in the dense utility")
	}
	wantLabels := []string{"0,0", "1,0", "2,0", "0,1", "1,1", "2,1"}
	if fmt.Sprint(p.Inputs) != fmt.Sprint(wantLabels) || fmt.Sprint(p.Outputs) != fmt.Sprint(wantLabels) {
		t.Fatalf("labels %v %v, want %v", p.Inputs, p.Outputs, wantLabels)
	}
	if p.N() != 6 || p.M() != 6 {
		t.Fatalf("N, M = %d, %d", p.N(), p.M())
	}
	for _, x := range p.Prior {
		if x != 1.0/6 {
			t.Fatalf("prior %v, want 1/6 each", p.Prior)
		}
	}
	u, err := p.RequireUtility()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		for j := range 6 {
			dx, dy := float64(i%3-j%3)*2, float64(i/3-j/3)*2
			if want := -math.Sqrt(dx*dx + dy*dy); u[i][j] != want {
				t.Fatalf("u[%d][%d] = %v, want %v", i, j, u[i][j], want)
			}
		}
	}
	if p.Order == nil || p.Order[0][0] != 6 || p.Order[0][5] != 1 {
		t.Fatalf("order %v", p.Order)
	}
}

func TestRuleMetricsCapTransformScale(t *testing.T) {
	doc := ruleHead + "prior: [0.5, 0.5]\npoints: [[0, 0], [3, -4]]\noutput_points: [[0, 0], [3, -4], [1, 1]]\n" +
		"utility_rule: {metric: %s, cap: %s, transform: %s, scale: 2}\n"
	cases := []struct {
		metric, cap, transform string
		want                   [2][3]float64 // the loss before the scale
	}{
		{"euclidean", "100", "linear", [2][3]float64{{0, 5, math.Sqrt2}, {5, 0, math.Sqrt(4 + 25)}}},
		{"manhattan", "100", "linear", [2][3]float64{{0, 7, 2}, {7, 0, 7}}},
		{"chebyshev", "100", "linear", [2][3]float64{{0, 4, 1}, {4, 0, 5}}},
		{"manhattan", "3", "linear", [2][3]float64{{0, 3, 2}, {3, 0, 3}}},
		{"manhattan", "3", "square", [2][3]float64{{0, 9, 4}, {9, 0, 9}}},
	}
	for _, c := range cases {
		p, err := Parse([]byte(fmt.Sprintf(doc, c.metric, c.cap, c.transform)), YAML)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(p.Outputs); got != "[0,0 3,-4 1,1]" {
			t.Fatalf("outputs %s", got)
		}
		u, err := p.RequireUtility()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			for j := range 3 {
				if want := -2 * c.want[i][j]; math.Abs(u[i][j]-want) > 1e-12 {
					t.Errorf("%s cap %s %s: u[%d][%d] = %v, want %v", c.metric, c.cap, c.transform, i, j, u[i][j], want)
				}
			}
		}
	}
}

func TestRuleHaversine(t *testing.T) {
	// A quarter of a great circle, from the equator to the pole, is
	// π/2·R; one degree of longitude on the equator is π/180·R.
	doc := ruleHead + "prior: uniform\npoints: [[0, 0], [90, 0], [0, 1]]\nutility_rule: {metric: haversine}\n"
	p, err := Parse([]byte(doc), YAML)
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.RequireUtility()
	if err != nil {
		t.Fatal(err)
	}
	if want := -math.Pi / 2 * mech.EarthRadiusKm; math.Abs(u[0][1]-want) > 1e-9 {
		t.Errorf("equator to pole %v km, want %v", u[0][1], want)
	}
	if want := -math.Pi / 180 * mech.EarthRadiusKm; math.Abs(u[0][2]-want) > 1e-9 {
		t.Errorf("one degree %v km, want %v", u[0][2], want)
	}
	if u[1][2] != u[1][0] { // every meridian meets at the pole
		t.Errorf("pole to (0,1) %v, pole to (0,0) %v", u[1][2], u[1][0])
	}
}

func TestRuleRoundTrip(t *testing.T) {
	docs := []string{
		ruleHead + "prior: uniform\nutility_rule:\n  metric: euclidean\n  grid: {width: 100, height: 100}\n",
		ruleHead + "prior: [0.25, 0.75]\ninputs: [home, work]\npoints: [[48.85, 2.35], [51.5, -0.12]]\nutility_rule: {metric: haversine, cap: 50, transform: square, scale: 0.5}\n",
		ruleHead + "prior: [0.5, 0.5]\nutility_rule: {metric: chebyshev, grid: {width: 2, height: 1, cell: 0.5}, output_grid: {width: 3, height: 1}}\n",
		ruleHead + "prior: [0.5, 0.5]\npoints: [[0, 0], [1, 1]]\noutput_points: [[2, 2]]\nutility_rule: {metric: manhattan}\n",
		ruleHead + "prior: uniform\nutility_rule:\n  metric: euclidean\n  grid: {width: 8, height: 5, cell: 0.02, origin: [2.25, -48.81]}\n",
	}
	for _, doc := range docs {
		p, err := Parse([]byte(doc), YAML)
		if err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		for _, f := range []Format{YAML, JSON} {
			data, err := Marshal(p, f)
			if err != nil {
				t.Fatal(err)
			}
			q, err := Parse(data, f)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if ruleText(q) != ruleText(p) {
				t.Fatalf("round trip changed the problem:\n%s", data)
			}
			if strings.Contains(doc, "100, height: 100") && len(data) > 4096 {
				t.Errorf("a 100×100 grid's file is %d bytes:\n%s", len(data), data)
			}
		}
	}
}

func TestRuleBadInput(t *testing.T) {
	grid := func(g string) string {
		return ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: " + g + "}\n"
	}
	pts := func(p string) string {
		return ruleHead + "prior: uniform\nutility_rule: {metric: euclidean}\npoints: " + p + "\n"
	}
	cases := []struct{ doc, want string }{
		{grid("{width: 0, height: 2}"), "utility_rule.grid.width: is 0"},
		{grid("{width: 2, height: -1}"), "utility_rule.grid.height: is -1"},
		{grid("{width: 2.5, height: 1}"), "utility_rule.grid.width: \"2.5\" is not an integer"},
		{grid("{width: 2}"), "utility_rule.grid.height: is missing"},
		{grid("{width: 2, height: 2, cell: 0}"), "utility_rule.grid.cell: is 0"},
		{grid("{width: 2, height: 2, cell: -1}"), "utility_rule.grid.cell: is negative"},
		{grid("{width: 2, height: 2, cell: .nan}"), "utility_rule.grid.cell: is NaN"},
		{grid("{width: 2, height: 2, size: 1}"), "utility_rule.grid: unknown key \"size\""},
		{grid("{width: 100000, height: 100000}"), "utility_rule.grid: has 100000×100000 cells, beyond the 4194304 a rule may have"},
		{grid("{width: 46341, height: 46341}"), "utility_rule.grid: has 46341×46341 cells, beyond the 4194304 a rule may have"},
		{grid("{width: 4194305, height: 1}"), "utility_rule.grid: has 4194305×1 cells"},
		{grid("[2, 2]"), "utility_rule.grid: is a list, not a mapping"},
		{grid("{width: 2, height: 2, origin: [1]}"), "utility_rule.grid.origin: has 1 numbers; want 2, [x, y]"},
		{grid("{width: 2, height: 2, origin: [1, 2, 3]}"), "utility_rule.grid.origin: has 3 numbers; want 2, [x, y]"},
		{grid("{width: 2, height: 2, origin: [1, .nan]}"), "utility_rule.grid.origin entry 2: is NaN"},
		{grid("{width: 2, height: 2, origin: [-.inf, 0]}"), "utility_rule.grid.origin entry 1: is infinite"},
		{grid("{width: 2, height: 2, origin: [x, 0]}"), "utility_rule.grid.origin entry 1: \"x\" is not a number"},
		{grid("{width: 2, height: 2, origin: 3}"), "utility_rule.grid.origin: is \"3\", not a list of numbers"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 1}, output_grid: {width: 2, height: 1, origin: [0, 0]}}\n", "utility_rule.output_grid: unknown key \"origin\""},
		{pts("[[0, 0], [.nan, 1]]"), "points row 2, column 1: is NaN"},
		{pts("[[0, 0], [1, .inf]]"), "points row 2, column 2: is infinite"},
		{pts("[[0, 0], [1]]"), "points row 2: has 1 coordinates"},
		{pts("[[0, 0], [0, 0]]"), "points row 2: repeats point 1"},
		{pts("[]"), "points: is empty"},
		{pts("[[0, 0], [1, x]]"), "points row 2, column 2: \"x\" is not a number"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: taxicab, grid: {width: 2, height: 2}}\n", "utility_rule.metric: \"taxicab\" is not one of"},
		{ruleHead + "prior: uniform\nutility_rule: {grid: {width: 2, height: 2}}\n", "utility_rule.metric: is missing"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean}\n", "utility_rule.grid: give one of utility_rule.grid and points"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}, transform: cube}\n", "utility_rule.transform: \"cube\" is not one of"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}, cap: -1}\n", "utility_rule.cap: is negative"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}, cap: 0}\n", "utility_rule.cap: is 0"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}, scale: .nan}\n", "utility_rule.scale: is NaN"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: haversine, grid: {width: 2, height: 2}}\n", "utility_rule.grid: is not for the haversine metric"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: haversine}\npoints: [[0, 0], [91, 0]]\n", "points row 2, column 1: latitude 91 is outside"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: haversine}\npoints: [[0, 0], [0, 181]]\n", "points row 2, column 2: longitude 181 is outside"},
		{ruleHead + "prior: [0.5, 0.5]\nutility_rule: {metric: euclidean, grid: {width: 3, height: 1}}\n", "prior: has 2 masses, but the utility_rule has 3 inputs"},
		{ruleHead + "prior: uniform\ninputs: [a, b]\nutility_rule: {metric: euclidean, grid: {width: 3, height: 1}}\n", "inputs: has 2 labels, but the utility_rule has 3 inputs"},
		{ruleHead + "prior: uniform\ninputs: [\"0,0\", \"2,0\", \"1,0\"]\nutility_rule: {metric: euclidean, grid: {width: 3, height: 1}}\n", "inputs entry 2: \"2,0\" does not name cell 2 of the grid"},
		{ruleHead + "prior: uniform\noutputs: [a]\nutility_rule: {metric: euclidean, grid: {width: 3, height: 1}}\n", "outputs: has 1 labels, but the utility_rule has 3 outputs"},
		{ruleHead + "prior: uniform\nutility: [[0]]\nutility_rule: {metric: euclidean, grid: {width: 1, height: 1}}\n", "utility: is given with utility_rule"},
		{ruleHead + "prior: uniform\norder: [[1]]\nutility_rule: {metric: euclidean, grid: {width: 1, height: 1}}\n", "order: is given with utility_rule"},
		{ruleHead + "prior: uniform\npoints: [[0, 0]]\nutility_rule: {metric: euclidean, grid: {width: 1, height: 1}}\n", "points: is given with utility_rule.grid"},
		{ruleHead + "prior: uniform\npoints: [[0, 0]]\n", "points: is for a utility_rule"},
		{ruleHead + "prior: uniform\nutility: [[0]]\n", "prior: is \"uniform\", which needs inputs or a utility_rule"},
		{ruleHead + "prior: uniform\nutility_rule: [euclidean]\n", "utility_rule: is a list, not a mapping"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 1, height: 1}, shape: round}\n", "utility_rule: unknown key \"shape\""},
	}
	for _, c := range cases {
		for _, f := range []Format{YAML} {
			_, err := Parse([]byte(c.doc), f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
				continue
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message of two lines: %q", err)
			}
			var fe *mech.FieldError
			if !errors.As(err, &fe) {
				t.Errorf("%v is not a *mech.FieldError", err)
			}
		}
	}
}

func TestRuleMaterializeRefusesBeyondMemory(t *testing.T) {
	doc := ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 100, height: 100}}\n"
	p, err := ParseSource([]byte(doc), YAML, "g.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old := MemoryLimit
	defer func() { MemoryLimit = old }()
	MemoryLimit = 1 << 30
	// 24 bytes per entry of a 10 000 × 10 000 matrix: 2.4e9 bytes.
	_, err = p.RequireUtility()
	if err == nil || !strings.Contains(err.Error(), "g.yaml: utility_rule: its dense 10000×10000 utility, order and mechanism need 2.2 GiB, beyond the memory limit (1.0 GiB)") {
		t.Fatalf("got %v", err)
	}
	if p.Utility != nil {
		t.Fatal("the refused utility was filled in")
	}
	if got := p.DenseNeed(); got != 24*1e8 {
		t.Fatalf("DenseNeed %v, want 2.4e9", got)
	}
}

// ruleText writes the rule and the labels and prior of p, the grids by
// value.
func ruleText(p *Problem) string {
	r := p.Rule
	sites := func(s mech.Sites) string {
		if s.Grid != nil {
			return fmt.Sprintf("grid %+v", *s.Grid)
		}
		return fmt.Sprintf("points %v", s.Points)
	}
	return fmt.Sprintf("%s | %s | %s %v %s %v | %q %q %v", sites(r.Inputs), sites(r.Out()), r.Metric, r.Cap, r.Transform, r.Scale, p.Inputs, p.Outputs, p.Prior)
}

// TestRuleBadInputJSON: the JSON reader gives the same one-line messages.
func TestRuleBadInputJSON(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"prior": "uniform", "utility_rule": {"metric": "euclidean", "grid": {"width": 0, "height": 2}}}`, "utility_rule.grid.width: is 0"},
		{`{"prior": "uniform", "utility_rule": {"metric": "cosine", "grid": {"width": 2, "height": 2}}}`, `utility_rule.metric: "cosine" is not one of`},
		{`{"prior": "uniform", "utility_rule": {"metric": "euclidean"}, "points": [[0, 0], [1, "NaN"]]}`, "points row 2, column 2: is NaN"},
		{`{"prior": "uniform", "inputs": ["a"], "utility_rule": {"metric": "euclidean", "grid": {"width": 2, "height": 1}}}`, "inputs: has 1 labels, but the utility_rule has 2 inputs"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc), JSON)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want %q", c.doc, err, c.want)
		}
	}
}

// TestRuleGridOrigin reads utility_rule.grid.origin into the grid, writes
// it back, and leaves a grid without one at 0,0 and written as before: the
// origin places the cells, and the utility does not depend on it.
func TestRuleGridOrigin(t *testing.T) {
	base := ruleHead + "prior: uniform\nutility_rule:\n  metric: euclidean\n  grid: {width: 3, height: 2, cell: 0.5"
	p, err := Parse([]byte(base+", origin: [10, -20.25]}\n"), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Rule.Inputs.Grid.Origin; got != [2]float64{10, -20.25} {
		t.Fatalf("origin %v, want [10 -20.25]", got)
	}
	q, err := Parse([]byte(base+"}\n"), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Rule.Inputs.Grid.Origin; got != [2]float64{} {
		t.Fatalf("origin %v without the key, want 0,0", got)
	}
	for i := range 6 {
		for j := range 6 {
			if a, b := p.Rule.At(i, j), q.Rule.At(i, j); a != b {
				t.Fatalf("u(%d, %d) is %v with the origin and %v without", i, j, a, b)
			}
		}
	}
	withOrigin, err := Marshal(p, YAML)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(withOrigin), "origin: [10, -20.25]") {
		t.Errorf("the origin is not written:\n%s", withOrigin)
	}
	without, err := Marshal(q, YAML)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(without), "origin") {
		t.Errorf("a grid at 0,0 is written with an origin:\n%s", without)
	}
	js, err := Marshal(p, JSON)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(js, JSON)
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if got := r.Rule.Inputs.Grid.Origin; got != [2]float64{10, -20.25} {
		t.Fatalf("JSON round trip: origin %v\n%s", got, js)
	}
}
