package sample_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/sample"
)

// Randomized response on a binary attribute: each answer is kept with
// probability 3/4. The seed makes the output reproducible.
func ExamplePrivatizeCSV() {
	p := mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}}
	s, err := sample.NewSampler(p, 2024)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := "id,smoker,age\n1,no,34\n2,yes,51\n3,no,27\n4,no,45\n5,yes,60\n"
	labels := []string{"no", "yes"}
	if err := sample.PrivatizeCSV(strings.NewReader(in), os.Stdout, "smoker", labels, labels, s); err != nil {
		fmt.Println(err)
	}

	// Records are written as they are read: a bad one stops the run after
	// the records before it (here the header).
	err = sample.PrivatizeCSV(strings.NewReader("id,smoker\n1,maybe\n"), os.Stdout, "smoker", labels, labels, s)
	fmt.Println(err)
	// Output:
	// id,smoker,age
	// 1,no,34
	// 2,yes,51
	// 3,no,27
	// 4,yes,45
	// 5,yes,60
	// id,smoker
	// line 2: value "maybe" of column smoker is not an input label (the inputs are ["no" "yes"])
}

func ExampleSampler_Sample() {
	// Output 1 of input 0 has probability 0 and is never drawn.
	p := mech.Mechanism{{0.5, 0, 0.5}, {0, 1, 0}}
	s, _ := sample.NewSampler(p, 1)
	for range 8 {
		fmt.Print(s.Sample(0), s.Sample(1), " ")
	}
	fmt.Println()
	// Output:
	// 2 1 0 1 0 1 0 1 0 1 0 1 2 1 0 1
}
