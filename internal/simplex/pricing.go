package simplex

// Pricing chooses the entering variable by rotating partial pricing
// (Dantzig's rule on a part of the columns): a scan starts where the last
// one stopped, reads the variables in cyclic order and stops once Chunk of
// them have been read and a candidate found, taking the best candidate
// read. Optimality is declared only by a scan of every variable that finds
// none. Under Bland's rule the scan starts at variable 0 and takes the
// first candidate, which rules out cycling (Bland (1977)).
//
// The engine scores the variables a block at a time (Score); the choice
// does not depend on the block, which only sets how many variables are
// scored at once (a block may be split over goroutines).
type Pricing struct {
	// From is where the next scan starts.
	From int
	// d and score are the scratch of one block.
	d, score []float64
}

// Scorer writes, for the variables v_k = (from + k) mod total with
// k0 ≤ k < k1, their reduced costs to d[k−k0] and their scores to
// score[k−k0]: the gain per unit of entering (|d|, when moving v_k off its
// bound lowers the objective by more than the optimality tolerance), 0
// for a variable that can not enter.
type Scorer func(from, k0, k1 int, d, score []float64)

// Enter scans the total variables, chunk at least in a partial scan, block
// at a time, and returns the entering variable q and its reduced cost, or
// q < 0 when no variable can enter.
func (pr *Pricing) Enter(total, chunk, block int, bland bool, scores Scorer) (q int, dq float64) {
	q, best := -1, 0.0
	from := pr.From
	if bland || from >= total {
		from = 0
	}
	if bland {
		block = 1
	}
	block = max(block, 1)
	if cap(pr.d) < block {
		pr.d, pr.score = make([]float64, block), make([]float64, block)
	}
	for k0 := 0; k0 < total; k0 += block {
		if q >= 0 && (bland || k0 >= chunk) {
			break
		}
		k1 := min(k0+block, total)
		d, score := pr.d[:k1-k0], pr.score[:k1-k0]
		scores(from, k0, k1, d, score)
		for k := k0; k < k1; k++ {
			if q >= 0 && (bland || k >= chunk) {
				break
			}
			v := from + k
			if v >= total {
				v -= total
			}
			pr.From = v + 1
			if sc := score[k-k0]; sc > best {
				q, dq, best = v, d[k-k0], sc
			}
		}
	}
	return q, dq
}
