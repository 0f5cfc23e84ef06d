package vec_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/vec"
)

func Example() {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{1, 1, 1, 1, 1}
	vec.AddScaled(y, 0.5, x) // y += 0.5·x
	fmt.Println(y)
	fmt.Println(vec.Dot(x, y))
	// Output:
	// [1.5 2 2.5 3 3.5]
	// 42.5
}
