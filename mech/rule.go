package mech

import (
	"fmt"
	"math"
	"strconv"
)

// Metric names the distance between two sites of a UtilityRule.
type Metric string

// The metrics of a UtilityRule. Haversine reads a site as [latitude,
// longitude] in degrees and gives the great-circle distance in kilometres
// on a sphere of radius EarthRadiusKm.
const (
	Euclidean Metric = "euclidean"
	Manhattan Metric = "manhattan"
	Chebyshev Metric = "chebyshev"
	Haversine Metric = "haversine"
)

// EarthRadiusKm is the radius of the sphere of the haversine metric: the
// mean radius of the Earth, 6371.0088 km (the IUGG mean radius R₁).
const EarthRadiusKm = 6371.0088

// Transform names how a UtilityRule turns a (capped) distance d into a
// loss: Linear gives d, Square gives d².
type Transform string

// The transforms of a UtilityRule; the empty Transform is Linear.
const (
	Linear Transform = "linear"
	Square Transform = "square"
)

// MaxSites bounds the inputs and the outputs of a UtilityRule: their
// labels and prior take some tens of bytes a site, about 100 MB at 2²²
// sites, while a grid's file is a few bytes whatever its size.
const MaxSites = 1 << 22

// Grid is a W×H grid of square cells of side Cell: cell k lies at column
// k mod W and row k div W, and its site is (column·Cell, row·Cell).
type Grid struct {
	Width, Height int
	Cell          float64
	// Origin places the grid among coordinates: cell k covers
	// [X + column·Cell, X + (column+1)·Cell) × [Y + row·Cell, Y +
	// (row+1)·Cell) for Origin = (X, Y), which is how points are binned
	// into cells. Distances between cells do not depend on it, so the
	// sites keep the frame of cell 0,0.
	Origin [2]float64
}

// Sites are the locations of the inputs or the outputs of a UtilityRule:
// the cells of a grid, or a list of coordinates. Exactly one is set.
type Sites struct {
	Grid   *Grid
	Points [][2]float64
}

// Len returns the number of sites; a grid with an overflowing cell count
// gives -1.
func (s Sites) Len() int {
	if s.Grid != nil {
		w, h := s.Grid.Width, s.Grid.Height
		if w < 0 || h < 0 || (h > 0 && w > math.MaxInt32/h) {
			return -1
		}
		return w * h
	}
	return len(s.Points)
}

// At returns the coordinates of site k.
func (s Sites) At(k int) (x, y float64) {
	if g := s.Grid; g != nil {
		return float64(k%g.Width) * g.Cell, float64(k/g.Width) * g.Cell
	}
	return s.Points[k][0], s.Points[k][1]
}

// Label returns the label of site k: "x,y" with the grid's column and row,
// or the point's two coordinates in the shortest form that reads back.
func (s Sites) Label(k int) string {
	if g := s.Grid; g != nil {
		return strconv.Itoa(k%g.Width) + "," + strconv.Itoa(k/g.Width)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return f(s.Points[k][0]) + "," + f(s.Points[k][1])
}

// Labels returns the labels of all the sites.
func (s Sites) Labels() []string {
	out := make([]string, s.Len())
	for k := range out {
		out[k] = s.Label(k)
	}
	return out
}

// UtilityRule defines an N×M utility by a rule rather than by its N·M
// entries: u(i, j) = −Scale·t(min(d(x_i, y_j), Cap)), with d the Metric's
// distance between input site x_i and output site y_j, t the Transform
// (t(d) = d or d²) and no cap when Cap is 0. It holds O(N + M) numbers;
// Dense gives the matrix where an engine needs one.
type UtilityRule struct {
	Metric    Metric
	Inputs    Sites
	Outputs   *Sites // nil: the outputs are the inputs
	Cap       float64
	Transform Transform
	Scale     float64 // 0 means 1
}

// Out returns the output sites.
func (r *UtilityRule) Out() Sites {
	if r.Outputs != nil {
		return *r.Outputs
	}
	return r.Inputs
}

// Rows returns the number of inputs N.
func (r *UtilityRule) Rows() int { return r.Inputs.Len() }

// Cols returns the number of outputs M.
func (r *UtilityRule) Cols() int { return r.Out().Len() }

// Distance returns the Metric's distance between input i and output j.
func (r *UtilityRule) Distance(i, j int) float64 {
	x1, y1 := r.Inputs.At(i)
	x2, y2 := r.Out().At(j)
	return r.Metric.Distance(x1, y1, x2, y2)
}

// Distance returns the distance between (x1, y1) and (x2, y2); for
// Haversine the points are [latitude, longitude] in degrees and the
// distance is in kilometres.
func (m Metric) Distance(x1, y1, x2, y2 float64) float64 {
	dx, dy := x1-x2, y1-y2
	switch m {
	case Manhattan:
		return math.Abs(dx) + math.Abs(dy)
	case Chebyshev:
		return max(math.Abs(dx), math.Abs(dy))
	case Haversine:
		// The haversine formula (Sinnott, "Virtues of the Haversine",
		// Sky and Telescope 68(2), 1984), accurate for small distances
		// where the spherical law of cosines loses digits.
		const rad = math.Pi / 180
		s1 := math.Sin(dx * rad / 2)
		s2 := math.Sin(dy * rad / 2)
		a := s1*s1 + math.Cos(x1*rad)*math.Cos(x2*rad)*s2*s2
		return 2 * EarthRadiusKm * math.Asin(min(1, math.Sqrt(a)))
	}
	return math.Sqrt(dx*dx + dy*dy)
}

// At returns the utility u(i, j).
func (r *UtilityRule) At(i, j int) float64 {
	return r.utility(r.Distance(i, j))
}

// utility returns the utility of a pair at distance d.
func (r *UtilityRule) utility(d float64) float64 {
	if r.Cap > 0 && d > r.Cap {
		d = r.Cap
	}
	if r.Transform == Square {
		d *= d
	}
	if r.Scale != 0 {
		d *= r.Scale
	}
	return 0 - d // 0, not −0, for a zero distance
}

// Row writes row i of the utility into dst, which has Cols() entries.
func (r *UtilityRule) Row(i int, dst []float64) {
	for j := range dst {
		dst[j] = r.At(i, j)
	}
}

// DenseBytes returns the bytes of one dense N×M matrix of float64, as a
// float64 so that it does not overflow.
func (r *UtilityRule) DenseBytes() float64 {
	return 8 * float64(r.Rows()) * float64(r.Cols())
}

// Dense returns the N×M utility matrix of the rule.
func (r *UtilityRule) Dense() Utility {
	n, m := r.Rows(), r.Cols()
	u := make(Utility, n)
	flat := make([]float64, n*m)
	for i := range u {
		u[i] = flat[i*m : (i+1)*m : (i+1)*m]
		r.Row(i, u[i])
	}
	return u
}

// ExpectedUtility returns Σ π_i p_ij u(i, j) without a dense utility.
func (r *UtilityRule) ExpectedUtility(pi Prior, p Mechanism) float64 {
	s := 0.0
	for i, row := range p {
		for j, v := range row {
			if v != 0 {
				s += pi[i] * v * r.At(i, j)
			}
		}
	}
	return s
}

// WorstCaseValue returns the smallest u(i, j) over the pairs that p uses,
// without a dense utility.
func (r *UtilityRule) WorstCaseValue(p Mechanism) float64 {
	w := math.Inf(1)
	for i, row := range p {
		for j, v := range row {
			if v > 0 {
				w = min(w, r.At(i, j))
			}
		}
	}
	return w
}

// Validate checks the rule: a known metric and transform; a grid of
// positive integer sides and a positive finite cell; at least one point,
// each with finite coordinates (for Haversine a latitude in [−90, 90] and a
// longitude in [−180, 180]); a cap and a scale that are finite and
// non-negative. Errors are *FieldError naming the key of the problem file
// (utility_rule.grid.width, points) and the point's index.
func (r *UtilityRule) Validate() error {
	const f = "utility_rule."
	switch r.Metric {
	case Euclidean, Manhattan, Chebyshev, Haversine:
	case "":
		return errorf(f+"metric", -1, -1, "is missing; want euclidean, manhattan, chebyshev or haversine")
	default:
		return errorf(f+"metric", -1, -1, "%q is not one of euclidean, manhattan, chebyshev, haversine", string(r.Metric))
	}
	switch r.Transform {
	case "", Linear, Square:
	default:
		return errorf(f+"transform", -1, -1, "%q is not one of linear, square", string(r.Transform))
	}
	if msg := nonNegative(r.Cap); msg != "" {
		return errorf(f+"cap", -1, -1, "%s", msg)
	}
	if msg := nonNegative(r.Scale); msg != "" {
		return errorf(f+"scale", -1, -1, "%s", msg)
	}
	if err := r.Inputs.validate(f+"grid", "points", r.Metric); err != nil {
		return err
	}
	if r.Outputs != nil {
		if err := r.Outputs.validate(f+"output_grid", "output_points", r.Metric); err != nil {
			return err
		}
	}
	return nil
}

func nonNegative(v float64) string {
	switch {
	case v != v:
		return "is NaN"
	case math.IsInf(v, 0):
		return "is infinite"
	case v < 0:
		return fmt.Sprintf("is negative (%g)", v)
	}
	return ""
}

// validate checks the sites whose keys in a problem file are gridKey and
// pointsKey.
func (s Sites) validate(gridKey, pointsKey string, m Metric) error {
	if (s.Grid != nil) == (s.Points != nil) {
		return errorf(gridKey, -1, -1, "give one of %s and %s", gridKey, pointsKey)
	}
	if g := s.Grid; g != nil {
		switch {
		case g.Width < 1:
			return errorf(gridKey+".width", -1, -1, "is %d; want a positive integer", g.Width)
		case g.Height < 1:
			return errorf(gridKey+".height", -1, -1, "is %d; want a positive integer", g.Height)
		case s.Len() < 0 || s.Len() > MaxSites:
			return errorf(gridKey, -1, -1, "has %d×%d cells, beyond the %d a rule may have", g.Width, g.Height, MaxSites)
		}
		if msg := nonNegative(g.Cell); msg != "" {
			return errorf(gridKey+".cell", -1, -1, "%s", msg)
		}
		if g.Cell == 0 {
			return errorf(gridKey+".cell", -1, -1, "is 0; want a positive cell size")
		}
		if m == Haversine {
			return errorf(gridKey, -1, -1, "is not for the haversine metric, which reads [latitude, longitude] points: give points")
		}
		return nil
	}
	if len(s.Points) == 0 {
		return errorf(pointsKey, -1, -1, "is empty")
	}
	if len(s.Points) > MaxSites {
		return errorf(pointsKey, -1, -1, "has %d points, beyond the %d a rule may have", len(s.Points), MaxSites)
	}
	for k, p := range s.Points {
		for c, v := range p {
			if v != v {
				return errorf(pointsKey, k, c, "is NaN")
			}
			if math.IsInf(v, 0) {
				return errorf(pointsKey, k, c, "is infinite")
			}
		}
		if m == Haversine {
			if p[0] < -90 || p[0] > 90 {
				return errorf(pointsKey, k, 0, "latitude %g is outside [-90, 90]", p[0])
			}
			if p[1] < -180 || p[1] > 180 {
				return errorf(pointsKey, k, 1, "longitude %g is outside [-180, 180]", p[1])
			}
		}
	}
	return nil
}

// WorstCaseOrder returns min over p_ij > 0 of the rank of u(i, j) in row
// i (see Order), in O(N·M) time and O(1) memory: a rank grows with the
// utility within a row, so row i's least rank over its used pairs is the
// rank of its least used utility w_i, the number of entries of the row at
// most w_i. It returns 0 when p is not N×M.
func (r *UtilityRule) WorstCaseOrder(p Mechanism) int {
	n, m := r.Rows(), r.Cols()
	if len(p) != n {
		return 0
	}
	h := 0
	for i, pr := range p {
		if len(pr) != m {
			return 0
		}
		w, used := 0.0, false
		for j, v := range pr {
			if v > 0 {
				if u := r.At(i, j); !used || u < w {
					w, used = u, true
				}
			}
		}
		if !used {
			continue
		}
		rank := 0
		for j := range m {
			if r.At(i, j) <= w {
				rank++
			}
		}
		if h == 0 || rank < h {
			h = rank
		}
	}
	return h
}

// Columns is a utility read one output's column at a time, so that an
// engine that visits the outputs in turn needs O(N) memory for it: a dense
// Utility or a UtilityRule.
type Columns interface {
	// Dims returns the number of inputs N and outputs M.
	Dims() (n, m int)
	// Column writes u(·, j) into dst, which has N entries.
	Column(j int, dst []float64)
}

// Dims returns the number of inputs N and outputs M.
func (r *UtilityRule) Dims() (n, m int) { return r.Rows(), r.Cols() }

// Column writes column j of the utility into dst, which has Rows() entries.
func (r *UtilityRule) Column(j int, dst []float64) {
	for i := range dst {
		dst[i] = r.At(i, j)
	}
}

// MaxAbs returns the largest |u(i, j)| of the rule in O(1) memory. The
// loss grows with the distance, and a distance given by a norm is convex
// in the pair of sites, so between two grids it is largest at a pair of
// their corners (four by four); between points every pair is visited.
func (r *UtilityRule) MaxAbs() float64 {
	mx := 0.0
	in, out := r.Inputs, r.Out()
	if in.Grid != nil && out.Grid != nil && r.Metric != Haversine {
		for _, a := range in.corners() {
			for _, b := range out.corners() {
				x1, y1 := in.At(a)
				x2, y2 := out.At(b)
				mx = max(mx, math.Abs(r.utility(r.Metric.Distance(x1, y1, x2, y2))))
			}
		}
		return mx
	}
	n, m := r.Dims()
	for i := range n {
		for j := range m {
			mx = max(mx, math.Abs(r.At(i, j)))
		}
	}
	return mx
}

// MaxAbsWithin reports whether the largest |u(i, j)| is 0 or lies in
// [lo, hi], in O(N + M) distances where it can: the distances from input
// 0 to every output and from every input to output 0 have a largest L,
// and by the triangle inequality through those two sites every distance
// lies within 3L, so the largest |u| lies between the utility's
// magnitude at L and at 3L (it grows with the distance). Only when that
// range straddles lo or hi are all N·M pairs visited (MaxAbs), which on
// 70 000 points takes minutes.
func (r *UtilityRule) MaxAbsWithin(lo, hi float64) bool {
	exact := func() bool {
		mx := r.MaxAbs()
		return mx == 0 || (mx >= lo && mx <= hi)
	}
	in, out := r.Inputs, r.Out()
	if in.Grid != nil && out.Grid != nil && r.Metric != Haversine {
		return exact() // MaxAbs visits only the grids' corners
	}
	n, m := r.Dims()
	l := 0.0
	for j := range m {
		l = max(l, r.Distance(0, j))
	}
	for i := range n {
		l = max(l, r.Distance(i, 0))
	}
	// The margin covers the rounding of the computed distances, a few
	// units in the last place each.
	least, most := math.Abs(r.utility(l)), math.Abs(r.utility(3*l*(1+1e-9)))
	switch {
	case most == 0:
		return true
	case least >= lo && most <= hi:
		return true
	case least > hi || (least > 0 && most < lo):
		return false
	}
	return exact()
}

// corners returns the cells at the four corners of a grid.
func (s Sites) corners() [4]int {
	w, h := s.Grid.Width, s.Grid.Height
	return [4]int{0, w - 1, (h - 1) * w, h*w - 1}
}
