package expected

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pmlopt/pmlopt/mech"
)

// coarseTol, times max(1, |value|), is the reduced gain above which a
// coarse level's pricing counts an output as violated. A coarse level only
// places outputs for the next one, which prices every output again: the
// last rounds of an exact pricing add outputs that move its value by less
// than this and cost as much as the first.
const coarseTol = 1e-7

// coarseBlocks is the fewest merged inputs a coarse level has: below it
// the blocks are too large to place the outputs a finer level uses. (A
// variable for the tests.)
var coarseBlocks = 256

// coarseSeed returns the outputs with which the active set over outputs
// starts on a problem whose inputs are the sites of a rule (a grid or a
// list of points); nil when there is no coarse level, when every level
// fails, or when ctx is done.
//
// Which outputs the optimum uses is a property of the geometry more than of
// the single cells: on a grid of a few thousand cells they lie on a
// lattice whose spacing the budget and the prior's density set. The
// problem in which the inputs of a block of f×f cells share one row of the
// mechanism (a block's prior is its cells' mass, its utility their
// prior-weighted mean; its optimum is feasible for the whole problem) has
// N/f² inputs, so its interior points cost about f² times less (its
// pricing still reads every entry of the rule once a round), and the outputs
// its optimum uses lie near those of the whole problem's. Levels run from
// the coarsest with at least coarseBlocks blocks to f = 2, each starting
// from the outputs of the coarser one, and the whole problem starts from
// those of f = 2: its rounds then add the few outputs the blocks placed
// differently, instead of finding the lattice from the outputs of best
// constant utility one doubling at a time.
//
// Under LIP and ALIP, whose rounds drop the outputs their optimum leaves
// unused (dropUnused), a level passes on the outputs its optimum uses.
// Under ε-PML and LDP it passes on its whole last set: a restricted ε-PML
// problem over little more than the outputs its optimum uses is the one
// whose low-rank Newton systems lose their digits and fall back on dense
// N×N factors in most iterations, where the set with the outputs it left
// unused needs none (docs/performance.md, "Merged-input levels").
//
// The levels only choose where the whole problem's active set starts: its
// own pricing over every output decides the optimum and certifies it. A
// level that fails leaves the seed of the level before it.
func coarseSeed(ctx context.Context, pi mech.Prior, u mech.Columns, b mech.Budget, opt Options) []int {
	rule, ok := u.(*mech.UtilityRule)
	if !ok {
		return nil
	}
	n, _ := u.Dims()
	var factors []int
	for f := 2; n/(f*f) >= coarseBlocks; f *= 2 {
		factors = append(factors, f)
	}
	var seed []int
	for _, f := range slices.Backward(factors) {
		if ctx.Err() != nil {
			return nil
		}
		merged, ok := mergeInputs(pi, u, rule.Inputs, f)
		if !ok {
			continue
		}
		start := seed
		if start == nil {
			start = seedOutputs(merged.norm, merged, firstOutputs)
		}
		lvl := opt
		lvl.Notify = nil
		if opt.Notify != nil {
			lvl.Notify = func(msg string) {
				opt.Notify(fmt.Sprintf("inputs merged %d×%d (%d blocks): %s", f, f, len(merged.mass), msg))
			}
		}
		last, err := priceRounds(ctx, merged.mass, merged.norm, merged, b, start, coarseTol, lvl)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			opt.notify("inputs merged %d×%d: %v", f, f, err)
			continue
		}
		seed = last.set
		if dropsUnused(b) {
			seed = usedOutputs(merged.norm, last)
		}
	}
	return seed
}

// usedOutputs returns the outputs of last's set that its optimum uses
// (usedColumns), in increasing order.
func usedOutputs(norm mech.Prior, last restricted) []int {
	var out []int
	for c, ok := range usedColumns(norm, last.r.Mechanism) {
		if ok {
			out = append(out, last.set[c])
		}
	}
	return out
}

// merged is a problem whose inputs are blocks of another's, read a column
// at a time: block k has the prior mass[k] and the utility the
// prior-weighted mean of its inputs' in each column.
type merged struct {
	u     mech.Columns
	pi    mech.Prior // the inputs' prior
	block []int      // each input's block, −1 for an input of no mass
	mass  mech.Prior // each block's prior mass
	norm  mech.Prior // mass normalised
	cols  sync.Pool  // scratch columns of the inputs
}

// mergeInputs returns the problem with the sites merged into blocks of
// f×f grid cells, or, for points, of the cells of a square raster whose
// side is f times the points' spacing (the larger of √(area/N) over their
// bounding box and its longer side over N, so that points along a line
// are merged too); blocks of no prior mass are left out. It reports false
// when fewer than coarseBlocks blocks have mass, or when merging leaves
// more than two thirds as many blocks as inputs (points whose bounding box
// has no extent, or so spread that few share a cell): such a level would
// cost about as much as the whole problem.
func mergeInputs(pi mech.Prior, u mech.Columns, s mech.Sites, f int) (*merged, bool) {
	n, _ := u.Dims()
	cell := make([]int, n)
	if g := s.Grid; g != nil {
		cw := (g.Width + f - 1) / f
		for i := range cell {
			cell[i] = (i/g.Width/f)*cw + i%g.Width/f
		}
	} else {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range s.Points {
			x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
		}
		dx, dy := x1-x0, y1-y0
		side := float64(f) * max(math.Sqrt(dx*dy/float64(n)), max(dx, dy)/float64(n))
		if !(side > 0) || math.IsInf(side, 0) {
			return nil, false
		}
		cw := int(dx/side) + 1
		for i, p := range s.Points {
			cell[i] = int((p[1]-y0)/side)*cw + int((p[0]-x0)/side)
		}
	}
	// Blocks numbered in the order of their first input of positive mass;
	// an input of no mass joins none.
	m := &merged{u: u, pi: pi, block: make([]int, n)}
	number := map[int]int{}
	for i, c := range cell {
		if !(pi[i] > 0) {
			m.block[i] = -1
			continue
		}
		k, ok := number[c]
		if !ok {
			k = len(m.mass)
			number[c] = k
			m.mass = append(m.mass, 0)
		}
		m.block[i] = k
		m.mass[k] += pi[i]
	}
	if len(m.mass) < coarseBlocks || 3*len(m.mass) > 2*n {
		return nil, false
	}
	m.norm = normalised(m.mass)
	m.cols.New = func() any { s := make([]float64, n); return &s }
	return m, true
}

// Dims returns the number of blocks and of outputs.
func (m *merged) Dims() (int, int) {
	_, out := m.u.Dims()
	return len(m.mass), out
}

// Column writes the blocks' utilities for output j into dst; it is safe
// for concurrent use, as pricing needs.
func (m *merged) Column(j int, dst []float64) {
	buf := m.cols.Get().(*[]float64)
	col := *buf
	m.u.Column(j, col)
	clear(dst)
	for i, k := range m.block {
		if k >= 0 {
			dst[k] += m.pi[i] * col[i]
		}
	}
	for k := range dst {
		dst[k] /= m.mass[k]
	}
	m.cols.Put(buf)
}
