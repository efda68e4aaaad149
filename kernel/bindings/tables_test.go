package bindings

import (
	"errors"
	"reflect"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
)

var tableVar = 1

func tableFunc(x int) int { return 2 * x }

type tableType struct{ A int }

// TestTableMaps checks that valueMap and typeMap give what genimport's
// map literals gave: ValueOf(f) of a function, ValueOf(&v).Elem() of a
// variable (addressable: a cell's assignment reaches the variable),
// ValueOf(c) of a constant, TypeOf((*T)(nil)).Elem() of a type.
func TestTableMaps(t *testing.T) {
	defer func(v int) { tableVar = v }(tableVar)
	vals := valueMap([]bind{
		{"F", tableFunc, false},
		{"V", &tableVar, true},
		{"C", int64(7), false},
	})
	if got := vals["F"].Call([]reflect.Value{reflect.ValueOf(21)})[0].Int(); got != 42 {
		t.Errorf("F(21) = %d through the table, want 42", got)
	}
	if !vals["V"].CanSet() {
		t.Fatal("the variable's binding is not settable")
	}
	vals["V"].SetInt(5)
	if tableVar != 5 {
		t.Errorf("setting the binding left the variable at %d, want 5", tableVar)
	}
	if c := vals["C"]; c.Kind() != reflect.Int64 || c.Int() != 7 || c.CanSet() {
		t.Errorf("constant binding: kind %v value %v settable %v", c.Kind(), c, c.CanSet())
	}
	types := typeMap([]typeBind{{"T", (*tableType)(nil)}})
	if types["T"] != reflect.TypeOf(tableType{}) {
		t.Errorf("type binding %v, want %v", types["T"], reflect.TypeOf(tableType{}))
	}
}

// TestGeneratedTables checks the generated tables themselves: every
// binding is valid, every type non-nil, and a variable, a function, an
// untyped constant and a type of the engine are bound as the packages
// have them.
func TestGeneratedTables(t *testing.T) {
	for path, p := range Packages {
		for n, v := range p.Binds {
			if !v.IsValid() {
				t.Errorf("%s.%s: invalid binding", path, n)
			}
		}
		for n, ty := range p.Types {
			if ty == nil {
				t.Errorf("%s.%s: nil type", path, n)
			}
		}
	}
	eng := Packages["github.com/veclab/veclab/engine"]
	v := eng.Binds["ErrDimension"]
	if !v.CanSet() || !errors.Is(v.Interface().(error), engine.ErrDimension) {
		t.Errorf("engine.ErrDimension bound as %v (settable %v)", v, v.CanSet())
	}
	h := Packages["github.com/veclab/veclab/engine/hnsw"]
	if f := h.Binds["New"]; f.Kind() != reflect.Func || f.Pointer() != reflect.ValueOf(hnsw.New).Pointer() {
		t.Errorf("hnsw.New bound as %v", f)
	}
	if c := h.Binds["MaxLevels"]; c.Kind() != reflect.Int || c.Int() != hnsw.MaxLevels {
		t.Errorf("hnsw.MaxLevels bound as %v", c)
	}
	if ty := h.Types["Config"]; ty != reflect.TypeOf(hnsw.Config{}) {
		t.Errorf("hnsw.Config bound as %v", ty)
	}
}
