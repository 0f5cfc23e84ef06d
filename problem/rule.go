package problem

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
)

// A problem file may give its utility by a rule instead of N·M numbers:
//
//	utility_rule:
//	  metric: euclidean        # manhattan, chebyshev, haversine
//	  grid: {width: 100, height: 100, cell: 1}
//	  cap: 5                   # optional: the loss is min(d, cap)
//	  transform: linear        # optional: square gives the loss d²
//	  scale: 1                 # optional: u = −scale·loss
//	prior: uniform             # or the N masses
//
// or, for sites given by their coordinates, the top-level keys points
// ([[x, y], ...], or [[latitude, longitude], ...] for haversine) and, when
// the outputs are other sites, output_points (or utility_rule.output_grid).
// The points are top-level keys so that a point's coordinates stay within
// the depth the readers keep (see maxDepth).

// ruleKeys are the keys of the utility_rule block.
var ruleKeys = []string{"metric", "grid", "output_grid", "cap", "transform", "scale"}

// ruleSource collects the keys of a document that describe a rule, which
// finishRule puts together once every key is read.
type ruleSource struct {
	rule         *mech.UtilityRule
	points       [][2]float64
	outputPoints [][2]float64
	uniformPrior bool
	givenPoints  bool
	givenOutPts  bool
	givenUtility bool
	givenOrder   bool
	// sparse holds the rows of mechanism_sparse until the number of
	// outputs is known (sparse.go).
	sparse         [][]float64
	givenMechanism bool
	// memoryLimit bounds the dense matrix of mechanism_sparse (memoryBound).
	memoryLimit int64
}

// decodeRuleKey reads the value of a key that concerns a rule: it reports
// false for another key.
func (rs *ruleSource) decodeRuleKey(key string, v *node) (bool, error) {
	var err error
	switch key {
	case "utility_rule":
		rs.rule, err = decodeRule(v)
	case "points":
		rs.givenPoints = true
		rs.points, err = decodePoints("points", v)
	case "output_points":
		rs.givenOutPts = true
		rs.outputPoints, err = decodePoints("output_points", v)
	case "mechanism_sparse":
		err = rs.readSparse(v)
	default:
		return false, nil
	}
	return true, err
}

func decodeRule(v *node) (*mech.UtilityRule, error) {
	if v.kind != mapNode {
		return nil, fieldErr("utility_rule", -1, -1, "is %s, not a mapping with metric and grid (or top-level points)", v.describe())
	}
	if err := checkKeys("utility_rule.", *v, ruleKeys); err != nil {
		return nil, err
	}
	r := &mech.UtilityRule{}
	for i, k := range v.keys {
		kid := &v.kids[i]
		field := "utility_rule." + k
		switch k {
		case "metric", "transform":
			s, err := scalarText(field, -1, kid, "a word")
			if err != nil {
				return nil, err
			}
			if k == "metric" {
				if s == "" {
					return nil, fieldErr(field, -1, -1, "is empty; want euclidean, manhattan, chebyshev or haversine")
				}
				r.Metric = mech.Metric(s)
			} else {
				r.Transform = mech.Transform(s)
			}
		case "cap", "scale":
			x, msg := number(kid)
			if msg != "" {
				return nil, fieldErr(field, -1, -1, "%s", msg)
			}
			if k == "cap" {
				if x == 0 {
					return nil, fieldErr(field, -1, -1, "is 0; want a positive distance (leave cap out for none)")
				}
				r.Cap = x
			} else {
				if x == 0 {
					return nil, fieldErr(field, -1, -1, "is 0; want a positive factor (leave scale out for 1)")
				}
				r.Scale = x
			}
		case "grid", "output_grid":
			g, err := decodeGrid(field, kid)
			if err != nil {
				return nil, err
			}
			if k == "grid" {
				r.Inputs.Grid = g
			} else {
				r.Outputs = &mech.Sites{Grid: g}
			}
		}
	}
	return r, nil
}

// decodeGrid reads {width: W, height: H, cell: S, origin: [X, Y]}; cell is
// 1 and origin 0,0 when left out. Only utility_rule.grid has an origin:
// it places the input cells for binning points, and the output grid lies
// in the same frame.
func decodeGrid(field string, v *node) (*mech.Grid, error) {
	if v.kind != mapNode {
		return nil, fieldErr(field, -1, -1, "is %s, not a mapping with width and height", v.describe())
	}
	keys := []string{"width", "height", "cell"}
	if field == "utility_rule.grid" {
		keys = append(keys, "origin")
	}
	if err := checkKeys(field+".", *v, keys); err != nil {
		return nil, err
	}
	g := &mech.Grid{Cell: 1}
	given := map[string]bool{}
	for i, k := range v.keys {
		kid := &v.kids[i]
		given[k] = true
		if k == "origin" {
			xy, err := vector(field+".origin", kid)
			if err != nil {
				return nil, err
			}
			if len(xy) != 2 {
				return nil, fieldErr(field+".origin", -1, -1, "has %d numbers; want 2, [x, y]: the corner of cell 0,0", len(xy))
			}
			g.Origin = [2]float64{xy[0], xy[1]}
			continue
		}
		if k == "cell" {
			x, msg := number(kid)
			if msg != "" {
				return nil, fieldErr(field+".cell", -1, -1, "%s", msg)
			}
			g.Cell = x
			continue
		}
		x, msg := integer(kid)
		if msg != "" {
			return nil, fieldErr(field+"."+k, -1, -1, "%s", msg)
		}
		if x < 1 {
			return nil, fieldErr(field+"."+k, -1, -1, "is %d; want a positive integer", x)
		}
		if k == "width" {
			g.Width = x
		} else {
			g.Height = x
		}
	}
	for _, k := range []string{"width", "height"} {
		if !given[k] {
			return nil, missing(field+"."+k, "a grid needs width and height")
		}
	}
	return g, nil
}

// decodePoints reads [[x, y], ...].
func decodePoints(field string, v *node) ([][2]float64, error) {
	rows, err := matrix(field, v)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fieldErr(field, -1, -1, "is empty")
	}
	out := make([][2]float64, len(rows))
	for i, r := range rows {
		if len(r) != 2 {
			return nil, fieldErr(field, i, -1, "has %d coordinates; want 2, [x, y] (or [latitude, longitude])", len(r))
		}
		out[i] = [2]float64{r[0], r[1]}
	}
	return out, nil
}

// finish puts the rule together after every key is read: the points go
// into the rule, the labels are derived (or checked against the sites) and
// a prior given as "uniform" gets its masses; then the rows of
// mechanism_sparse, which need the number of outputs, are read.
func (rs *ruleSource) finish(p *Problem) error {
	if err := rs.finishRule(p); err != nil {
		return err
	}
	return rs.finishSparse(p)
}

// finishRule is the part of finish that concerns the rule.
func (rs *ruleSource) finishRule(p *Problem) error {
	r := rs.rule
	switch {
	case r == nil && (rs.givenPoints || rs.givenOutPts):
		k := "points"
		if !rs.givenPoints {
			k = "output_points"
		}
		return fieldErr(k, -1, -1, "is for a utility_rule; give utility_rule with a metric")
	case r == nil:
		if rs.uniformPrior {
			n := len(p.Inputs)
			if n == 0 {
				return fieldErr("prior", -1, -1, "is \"uniform\", which needs inputs or a utility_rule to give the number of letters")
			}
			p.Prior = mech.Uniform(n)
		}
		return nil
	case rs.givenUtility:
		return fieldErr("utility", -1, -1, "is given with utility_rule; give one of them")
	case rs.givenOrder:
		return fieldErr("order", -1, -1, "is given with utility_rule, which defines the order; leave order out")
	}
	if rs.givenPoints {
		if r.Inputs.Grid != nil {
			return fieldErr("points", -1, -1, "is given with utility_rule.grid; give one of them")
		}
		r.Inputs.Points = rs.points
	}
	if rs.givenOutPts {
		if r.Outputs != nil {
			return fieldErr("output_points", -1, -1, "is given with utility_rule.output_grid; give one of them")
		}
		r.Outputs = &mech.Sites{Points: rs.outputPoints}
	}
	if err := r.Validate(); err != nil {
		return err
	}
	n, m := r.Rows(), r.Cols()
	if rs.uniformPrior {
		p.Prior = mech.Uniform(n)
	} else if p.Prior != nil && len(p.Prior) != n {
		// Checked before labels are derived, so that a grid far larger
		// than its prior costs nothing.
		return fieldErr("prior", -1, -1, "has %d masses, but the utility_rule has %d inputs", len(p.Prior), n)
	}
	if p.Outputs != nil && len(p.Outputs) != m {
		return fieldErr("outputs", -1, -1, "has %d labels, but the utility_rule has %d outputs", len(p.Outputs), m)
	}
	if p.Inputs != nil && len(p.Inputs) != n {
		return fieldErr("inputs", -1, -1, "has %d labels, but the utility_rule has %d inputs", len(p.Inputs), n)
	}
	var err error
	if p.Inputs, err = siteLabels("inputs", "points", r.Inputs, p.Inputs); err != nil {
		return err
	}
	if r.Outputs == nil {
		if p.Outputs == nil {
			p.Outputs = p.Inputs
		} else if p.Outputs, err = siteLabels("outputs", "points", r.Inputs, p.Outputs); err != nil {
			return err
		}
	} else if p.Outputs, err = siteLabels("outputs", "output_points", *r.Outputs, p.Outputs); err != nil {
		return err
	}
	p.Rule = r
	return nil
}

// siteLabels returns the labels of the sites: the given ones, which on a
// grid must name its cells in order ("x,y", or "x:y"), or else the derived
// ones; points without labels must be distinct, as their labels are.
func siteLabels(field, pointsKey string, s mech.Sites, given []string) ([]string, error) {
	if given != nil {
		if s.Grid != nil {
			for k, l := range given {
				if want := s.Label(k); l != want && strings.Replace(l, ":", ",", 1) != want {
					return nil, fieldErr(field, -1, k, "%s does not name cell %d of the grid, %q (cells run along rows: x = k mod width, y = k div width)", quote(l), k+1, want)
				}
			}
		}
		return given, nil
	}
	if s.Points != nil {
		seen := make(map[[2]float64]int, len(s.Points))
		for k, pt := range s.Points {
			if j, ok := seen[pt]; ok {
				return nil, fieldErr(pointsKey, k, -1, "repeats point %d; give %s labels to tell them apart", j+1, field)
			}
			seen[pt] = k
		}
	}
	return s.Labels(), nil
}

// isUniformPrior reports whether p holds the masses a prior "uniform"
// reads as.
func isUniformPrior(p mech.Prior) bool {
	u := 1 / float64(len(p))
	for _, x := range p {
		if x != u {
			return false
		}
	}
	return len(p) > 0
}

// labelsDerived reports whether the labels are those a file without them
// gets from the rule's sites.
func labelsDerived(s mech.Sites, labels []string) bool {
	if len(labels) != s.Len() {
		return false
	}
	for k, l := range labels {
		if l != s.Label(k) {
			return false
		}
	}
	return true
}

// ruleEntries are the keys Marshal writes for a problem with a rule, in
// place of inputs, outputs, prior and utility: labels are left out where
// the sites give them, and a uniform prior is written "uniform", so that a
// 100×100 grid is a file of a few hundred bytes.
func ruleEntries(p *Problem) []entry {
	r := p.Rule
	var es []entry
	if !labelsDerived(r.Inputs, p.Inputs) {
		es = append(es, entry{"inputs", p.Inputs})
	}
	if !labelsDerived(r.Out(), p.Outputs) {
		es = append(es, entry{"outputs", p.Outputs})
	}
	if isUniformPrior(p.Prior) {
		es = append(es, entry{"prior", word("uniform")})
	} else {
		es = append(es, entry{"prior", []float64(p.Prior)})
	}
	block := []entry{{"metric", word(r.Metric)}}
	grid := func(key string, g *mech.Grid) {
		fields := []entry{{"width", g.Width}, {"height", g.Height}, {"cell", g.Cell}}
		if g.Origin != [2]float64{} {
			fields = append(fields, entry{"origin", g.Origin[:]})
		}
		block = append(block, entry{key, fields})
	}
	if r.Inputs.Grid != nil {
		grid("grid", r.Inputs.Grid)
	}
	if r.Outputs != nil && r.Outputs.Grid != nil {
		grid("output_grid", r.Outputs.Grid)
	}
	if r.Cap != 0 {
		block = append(block, entry{"cap", r.Cap})
	}
	if r.Transform != "" && r.Transform != mech.Linear {
		block = append(block, entry{"transform", word(r.Transform)})
	}
	if r.Scale != 0 && r.Scale != 1 {
		block = append(block, entry{"scale", r.Scale})
	}
	es = append(es, entry{"utility_rule", block})
	pts := func(key string, ps [][2]float64) {
		rows := make([][]float64, len(ps))
		for k := range ps {
			rows[k] = ps[k][:]
		}
		es = append(es, entry{key, rows})
	}
	if r.Inputs.Points != nil {
		pts("points", r.Inputs.Points)
	}
	if r.Outputs != nil && r.Outputs.Points != nil {
		pts("output_points", r.Outputs.Points)
	}
	return es
}

// MemoryLimit is the number of bytes a dense utility of a rule may take
// with its order; 0 means the memory the system reports available
// (MemAvailable of /proc/meminfo), and no limit where it reports none.
var MemoryLimit int64

// DenseNeed returns the bytes that the dense utility of p's rule, its order
// and a mechanism of the same shape take: 24·N·M (8 for a float64 entry,
// 8 for an int rank, 8 for a probability).
func (p *Problem) DenseNeed() float64 {
	if p == nil || p.Rule == nil {
		return 0
	}
	return 3 * p.Rule.DenseBytes()
}

// SetMemoryLimit sets the bytes that the dense utility of p's rule and its
// order may take, in place of MemoryLimit; 0 restores MemoryLimit.
func (p *Problem) SetMemoryLimit(bytes int64) { p.memoryLimit = bytes }

// Materialize sets p.Utility and p.Order from p.Rule, when p has a rule
// and no utility yet. It refuses, before it allocates, a utility that,
// with its order and a mechanism, would not fit in memory (see SetMemoryLimit and MemoryLimit), saying the
// size needed; the solvers hold several more matrices of the same size.
func (p *Problem) Materialize() error {
	return p.MaterializeContext(context.Background())
}

// MaterializeContext is Materialize stopping when ctx ends: the order's
// derivation looks at ctx every few rows (mech.PollRows). A stopped call
// returns ctx.Err() and leaves p as it was.
func (p *Problem) MaterializeContext(ctx context.Context) error {
	if p == nil || p.Rule == nil || p.Utility != nil {
		return nil
	}
	need := p.DenseNeed()
	limit, what := memoryBound(p.memoryLimit)
	if limit > 0 && need > float64(limit) {
		return p.from(fieldErr("utility_rule", -1, -1, "its dense %d×%d utility, order and mechanism need %s, beyond %s (%s); the commands that solve hold them as matrices", p.Rule.Rows(), p.Rule.Cols(), bytesText(need), what, bytesText(float64(limit))))
	}
	u := p.Rule.Dense()
	o, err := u.OrderContext(ctx)
	if err != nil {
		return err
	}
	p.Utility, p.Order = u, o
	return nil
}

// ColumnsNeed returns the bytes that a solve reading p's rule a column at
// a time (an expected utility by the active set over outputs) holds as
// N×M matrices: the returned mechanism and a cleaned copy of it, 16·N·M.
func (p *Problem) ColumnsNeed() float64 {
	if p == nil || p.Rule == nil {
		return 0
	}
	return 2 * p.Rule.DenseBytes()
}

// CheckColumns refuses, before any work, a rule whose solve a column at a
// time would not fit in memory (ColumnsNeed against SetMemoryLimit's bound,
// MemoryLimit or the memory available), saying the size needed: the utility
// itself is never held, but the mechanism returned is a dense N×M matrix.
func (p *Problem) CheckColumns() error {
	if p == nil || p.Rule == nil {
		return nil
	}
	need := p.ColumnsNeed()
	limit, what := memoryBound(p.memoryLimit)
	if limit > 0 && need > float64(limit) {
		return p.from(fieldErr("utility_rule", -1, -1, "its dense %d×%d mechanism and a cleaned copy need %s, beyond %s (%s); the utility is read by its rule, but the mechanism is returned as a matrix", p.Rule.Rows(), p.Rule.Cols(), bytesText(need), what, bytesText(float64(limit))))
	}
	return nil
}

// memoryBound returns the bytes that dense matrices may take, and how to
// name that bound: own when positive (a command's --max-memory), else
// MemoryLimit, else the memory the system reports available (0 where it
// reports none: no bound).
func memoryBound(own int64) (int64, string) {
	switch {
	case own > 0:
		return own, "the memory limit"
	case MemoryLimit > 0:
		return MemoryLimit, "the memory limit"
	}
	return memAvailable(), "the memory available"
}

// bytesText writes a size in bytes with a binary unit.
func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[k]
}

// memAvailable returns the memory a process may still take: MemAvailable
// of /proc/meminfo, or less where a control group (version 2, as under
// Slurm or a container) allows less; 0 where neither can be read.
func memAvailable() int64 {
	avail := memInfoAvailable()
	if limit, used := cgroupBytes("memory.max"), cgroupBytes("memory.current"); limit > 0 && used >= 0 {
		if left := limit - used; avail <= 0 || left < avail {
			avail = max(left, 1)
		}
	}
	return avail
}

// cgroupBytes reads a number of bytes from a file of this process's
// control group (version 2); -1 where there is none or it reads "max".
func cgroupBytes(name string) int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	// A version 2 entry is the line "0::/path".
	var dir string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			dir = rest
		}
	}
	if dir == "" {
		return -1
	}
	b, err := os.ReadFile("/sys/fs/cgroup" + dir + "/" + name)
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// memInfoAvailable returns MemAvailable of /proc/meminfo in bytes, or 0
// where it can not be read.
func memInfoAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// note records which other keys the document gives, and reads a prior
// written "uniform".
func (rs *ruleSource) note(key string, v *node) {
	switch key {
	case "utility":
		rs.givenUtility = true
	case "order":
		rs.givenOrder = true
	case "mechanism":
		rs.givenMechanism = true
	case "prior":
		rs.uniformPrior = v.kind == scalarNode && v.text == "uniform"
	}
}
