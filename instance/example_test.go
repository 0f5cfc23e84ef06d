package instance_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/instance"
)

// The counting query on 4 letters with a binomial(3, 0.3) prior, and the
// list of families.
func Example() {
	pi, err := instance.Binomial(3, 0.3)
	if err != nil {
		fmt.Println(err)
		return
	}
	u, _ := instance.Counting(4)
	fmt.Printf("prior %.3f\n", pi)
	fmt.Println("utility row x = 2:", u[2])
	for _, f := range instance.Families()[:3] {
		in, _ := f.New(8, 1)
		n, m := in.Utility.Dims()
		fmt.Printf("%s: %d×%d\n", f.Name, n, m)
	}
	// Output:
	// prior [0.343 0.441 0.189 0.027]
	// utility row x = 2: [-5 -2 0 -1]
	// random: 8×8
	// counting-uniform: 8×8
	// counting-binomial: 8×8
}
