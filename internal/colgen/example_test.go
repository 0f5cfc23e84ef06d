package colgen_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/mech"
)

// The paper's Example 1 at h = 2: the least ε is log 2. Below it the master
// proves the probed ε infeasible, and more (its duals prove 0.688); at it,
// it returns a mechanism.
func ExampleMaster_Probe() {
	o, _ := mech.NewOrder([][]int{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}})
	pi := mech.Prior{0.6, 0.25, 0.15}
	g, err := colgen.New(pi, o.Pattern(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	below, _ := g.Probe(0.6)
	fmt.Printf("at 0.6: no mechanism below %.4f\n", below.Lower)
	at, _ := g.Probe(math.Log(2))
	fmt.Printf("at log 2: a mechanism with PML %.4f\n", at.PML)
	// Output:
	// at 0.6: no mechanism below 0.6880
	// at log 2: a mechanism with PML 0.6931
}
