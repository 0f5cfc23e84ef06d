package problem_test

import (
	"fmt"
	"log"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

func ExampleParse() {
	doc := []byte(`
name: three letters
prior: [0.5, "1/4", "0.25"]
utility:
  - [0, -1, -4]
  - [-1, 0, -1]
  - [-4, -1, 0]
privacy: {measure: pml, epsilon: 1.2}
objective: worst-case-order
`)
	p, err := problem.Parse(doc, problem.YAML)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, p.N(), p.M())
	fmt.Println("prior:", p.Prior)
	fmt.Println("order:", p.Order) // derived from the utility; ties share the larger rank
	b, _ := p.RequirePrivacy()
	fmt.Println(b.Measure, b.Epsilon, p.Objective)
	// Output:
	// three letters 3 3
	// prior: [0.5 0.25 0.25]
	// order: [[3 2 1] [2 3 2] [1 2 3]]
	// pml 1.2 worst-case-order
}

func ExampleParse_error() {
	_, err := problem.Parse([]byte(`{"prior": [0.5, 0.5], "mechanism": [[1, 0], ["1/2", "abc"]]}`), problem.JSON)
	fmt.Println(err)
	// Output:
	// mechanism row 2, column 2: "abc" is not a number
}

func ExampleMarshal() {
	p := &problem.Problem{
		Prior:     mech.Uniform(2),
		Order:     mech.Order{{2, 1}, {1, 2}},
		Privacy:   &mech.Budget{Measure: mech.PML, Epsilon: 0.5},
		Objective: problem.WorstCaseOrder,
	}
	data, err := problem.Marshal(p, problem.YAML)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	// Output:
	// prior: [0.5, 0.5]
	// order:
	//   - [2, 1]
	//   - [1, 2]
	// privacy:
	//   measure: pml
	//   epsilon: 0.5
	// objective: worst-case-order
}
