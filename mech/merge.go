package mech

import "fmt"

// Merge returns the set of the masses that the priors of s give to k
// groups of letters, letter i in group of[i] (every group holding at
// least one letter). The image of a box is the box of the groups' summed
// bounds, clamped at 1 (any masses within those sums are split among a
// group's letters within their own bounds), and that of an L1 ball the ball of the same
// radius around the summed estimate (a move of mass between groups costs
// what it costs between two of their letters, and one within a group
// costs nothing). A mechanism whose rows are equal within each group
// gives output j the mass Σ_g σ_g q_gj under every prior, so its levels
// over s are those over the merged set of its k distinct rows.
func (s *PriorSet) Merge(of []int, k int) (*PriorSet, error) {
	if len(of) != len(s.Center) {
		return nil, fmt.Errorf("mech: PriorSet.Merge: %d groups for %d letters", len(of), len(s.Center))
	}
	center := make(Prior, k)
	var lower, upper []float64
	if s.IsBox() {
		lower, upper = make([]float64, k), make([]float64, k)
	}
	seen := make([]bool, k)
	for i, g := range of {
		if g < 0 || g >= k {
			return nil, fmt.Errorf("mech: PriorSet.Merge: letter %d in group %d of %d", i, g, k)
		}
		seen[g] = true
		center[g] += s.Center[i]
		if lower != nil {
			lower[g] += s.Lower[i]
			upper[g] += s.Upper[i]
		}
	}
	for g, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("mech: PriorSet.Merge: group %d has no letter", g)
		}
	}
	if lower == nil {
		return NewL1Set(center, s.Radius)
	}
	// A group's estimate or bounds may sum past 1 (the estimate's total
	// and the box's lower bounds may pass 1 by the rounding the sets
	// allow): no distribution gives a group more than 1, and the bounds
	// must hold the estimate.
	for g := range upper {
		center[g] = min(center[g], 1)
		upper[g] = max(min(upper[g], 1), center[g])
		lower[g] = min(lower[g], center[g])
	}
	return NewBoxSet(center, lower, upper)
}

// Merge returns the pattern of k groups of pat's inputs, input i in group
// of[i]: a group may use the outputs that all its inputs may, so that a
// mechanism whose rows are equal within each group has pat where its k
// distinct rows have the merged pattern.
func (pat Pattern) Merge(of []int, k int) Pattern {
	mp := make(Pattern, k)
	for g := range mp {
		mp[g] = make([]bool, len(pat[0]))
		for j := range mp[g] {
			mp[g][j] = true
		}
	}
	for i, g := range of {
		for j, ok := range pat[i] {
			mp[g][j] = mp[g][j] && ok
		}
	}
	return mp
}
