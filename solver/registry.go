package solver

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// factory makes a new Solver. It is called once per Get, so a backend may
// return a fresh value or a shared stateless one.
type factory func() Solver

var (
	registryMu sync.RWMutex
	registry   = map[string]factory{}
)

// register makes a backend available under name. Backends call it from an
// init function of the file that implements them. register returns an error
// if name is empty, f is nil or name is already taken.
func register(name string, f factory) error {
	if name == "" {
		return fmt.Errorf("solver: register: empty backend name")
	}
	if f == nil {
		return fmt.Errorf("solver: register %q: nil factory", name)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		return fmt.Errorf("solver: register %q: name already registered", name)
	}
	registry[name] = f
	return nil
}

// mustRegister is register for the init functions of this package, where a
// failure is a programming error.
func mustRegister(name string, f factory) {
	if err := register(name, f); err != nil {
		panic(err)
	}
}

// Get returns a new instance of the backend registered under name.
func Get(name string) (Solver, error) {
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("solver: unknown backend %q (built in: %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Names returns the names of the registered backends in sorted order.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// preference is the order in which Auto picks a backend: the first one that
// is registered wins.
var preference = []string{"clp", "revised", "gonum"}

// Auto returns the best backend built into this binary: Clp when the module
// was built with the clp tag, else the revised pure-Go simplex when it is
// registered, else Gonum.
func Auto() Solver {
	for _, name := range preference {
		if s, err := Get(name); err == nil {
			return s
		}
	}
	return Gonum()
}
