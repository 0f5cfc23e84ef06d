package sample_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/sample"
)

// Randomized response on a binary attribute: each answer is kept with
// probability 3/4. The seed makes the output reproducible, as a test needs;
// a release of real data takes NewSampler, whose draws no one can replay.
func ExamplePrivatizeCSV() {
	p := mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}}
	s, err := sample.NewSeededSampler(p, 2024)
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
	// 1,yes,34
	// 2,no,51
	// 3,no,27
	// 4,yes,45
	// 5,yes,60
	// id,smoker
	// line 2: value "maybe" of column smoker is not an input label (the inputs are ["no" "yes"])
}

// An age column is released as a decade, drawn from the operating system's
// random source (this mechanism happens to be deterministic), and the
// column that holds the exact birth date is dropped. The other fields are
// copied as they were, quotes included.
func ExampleCSV_Privatize() {
	p := mech.Mechanism{{1, 0}, {1, 0}, {0, 1}}
	s, err := sample.NewSampler(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := sample.CSV{
		Column:  "age",
		Inputs:  []string{"31", "38", "42"},
		Outputs: []string{"30-39", "40-49"},
		Drop:    []string{"born"},
	}
	in := "name,born,age\n\"Ng, A.\",1994-02-11,31\nBo,1987-07-30,38\n\"Li\",1983-01-02,42\n"
	if err := c.Privatize(strings.NewReader(in), os.Stdout, s); err != nil {
		fmt.Println(err)
	}
	// Output:
	// name,age
	// "Ng, A.",30-39
	// Bo,30-39
	// "Li",40-49
}

func ExampleSampler_Sample() {
	// Output 1 of input 0 has probability 0 and is never drawn.
	p := mech.Mechanism{{0.5, 0, 0.5}, {0, 1, 0}}
	s, _ := sample.NewSeededSampler(p, 1)
	for range 8 {
		fmt.Print(s.Sample(0), s.Sample(1), " ")
	}
	fmt.Println()
	// Output:
	// 2 1 0 1 2 1 0 1 0 1 2 1 2 1 0 1
}
