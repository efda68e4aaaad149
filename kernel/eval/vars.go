package eval

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmos72/gomacro/base"
	"github.com/cosmos72/gomacro/fast"
	xr "github.com/cosmos72/gomacro/xreflect"

	"github.com/veclab/veclab/kernel/display"
)

// Variable is a name the cells defined: a variable, a constant or a
// function, as %who, %whos and the debugger's variables panel list them.
type Variable struct {
	Name  string
	Kind  string // "var", "const" or "func"
	Type  string // its Go type as gomacro writes it
	Value string // a short text of the value (at most MaxVariableText bytes)
	Len   int    // the length of a slice, array, map, string or channel; -1 otherwise

	value reflect.Value
}

// MaxVariableText bounds Variable.Value: a value is written part by part
// and stops there, so a big index or slice costs no more than a glance.
const MaxVariableText = 200

// A Lister is an Interpreter that can list the names its cells defined
// (the kernel's debugger variables panel). Like Eval, its methods must not
// run while a cell runs.
type Lister interface {
	Variables() []Variable
	// VariableBundle renders one variable as a cell's value is shown.
	VariableBundle(name string) (Bundle, bool)
}

// Variables lists the variables, constants and functions the cells
// defined, sorted by name; the session's own (check, fmt, the rewrite's
// temporaries) are left out, as IPython's %who leaves out its namespace.
func (s *Session) Variables() []Variable {
	if s.closed {
		return nil
	}
	c := s.ir.Comp
	env := s.ir.PrepareEnv()
	names := make([]string, 0, len(c.Binds))
	for n := range c.Binds {
		if !s.hidden[n] && !strings.HasPrefix(n, "__veclab") && n != "_" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]Variable, 0, len(names))
	for _, n := range names {
		b := c.Binds[n]
		if b == nil || b.Type == nil {
			continue
		}
		var kind string
		switch b.Desc.Class() {
		case fast.ConstBind:
			if b.Type.ReflectType() == reflect.TypeOf((*fast.Import)(nil)) {
				continue // an imported package
			}
			kind = "const"
		case fast.VarBind, fast.IntBind:
			kind = "var"
		case fast.FuncBind:
			kind = "func"
		default:
			continue
		}
		v := Variable{Name: n, Kind: kind, Type: shortPaths(b.Type.String()), Len: -1}
		if lit, ok := b.Lit.Value.(fast.UntypedLit); ok && b.Const() {
			// an untyped constant: gomacro keeps the constant.Value
			v.Type, v.Value = "untyped "+lit.Kind.String(), lit.Val.ExactString()
			out = append(out, v)
			continue
		}
		safely(func() {
			var xv xr.Value
			if b.Const() {
				xv = b.ConstValue()
			} else {
				xv = b.RuntimeValue(c.CompGlobals, env)
			}
			v.value = xv.ReflectValue()
		})
		v.Value, v.Len = shortValue(v.value)
		out = append(out, v)
	}
	return out
}

// VariableBundle renders the named variable as a cell showing it would.
func (s *Session) VariableBundle(name string) (b Bundle, ok bool) {
	for _, v := range s.Variables() {
		if v.Name != name {
			continue
		}
		if !v.value.IsValid() || !v.value.CanInterface() {
			return Bundle{display.MIMEText: v.Value}, true
		}
		safely(func() { b = limitBundle(limitText(display.Render(v.value.Interface()))) })
		if b == nil {
			b = Bundle{display.MIMEText: v.Value}
		}
		return b, true
	}
	return nil, false
}

// shortValue writes v in at most MaxVariableText bytes, and returns its
// length when it has one.
func shortValue(v reflect.Value) (string, int) {
	w := &boundedText{limit: MaxVariableText}
	n := -1
	safely(func() {
		switch v.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map, reflect.String, reflect.Chan:
			n = v.Len()
		}
		w.value(v, 0)
	})
	text := w.String()
	if w.cut && !strings.HasSuffix(text, "…") {
		text += "…"
	}
	// one line, as IPython's %whos writes a value
	return strings.ReplaceAll(text, "\n", `\n`), n
}

// pathRE matches the directories of an import path in a type's name.
var pathRE = regexp.MustCompile(`(?:[\w.-]+/)+`)

// shortPaths writes a type as Go's reflect does: *table.Table, not
// gomacro's *github.com/veclab/veclab/lab/table.Table.
func shortPaths(t string) string { return pathRE.ReplaceAllString(t, "") }

// boundedText writes values up to a limit, then stops with "…".
type boundedText struct {
	strings.Builder
	limit int
	cut   bool // something was left out
}

// full reports whether the limit is reached: what is left is cut.
func (w *boundedText) full() bool {
	if w.Len() >= w.limit {
		w.cut = true
		return true
	}
	return false
}

func (w *boundedText) put(s string) {
	if room := w.limit - w.Len(); len(s) > room {
		for room > 0 && !utf8RuneStart(s, room) {
			room--
		}
		s = s[:max(room, 0)] + "…"
		w.cut = true
	}
	w.WriteString(s)
}

func utf8RuneStart(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }

func (w *boundedText) value(v reflect.Value, depth int) {
	if w.full() {
		return
	}
	if !v.IsValid() {
		w.put("<nil>")
		return
	}
	if v.CanInterface() && (v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface || !v.IsNil()) {
		switch x := v.Interface().(type) {
		case error:
			w.put(x.Error())
			return
		case fmt.Stringer:
			w.put(x.String())
			return
		}
	}
	switch v.Kind() {
	case reflect.String:
		w.put(strconv.Quote(v.String()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			w.put("nil")
			return
		}
		w.put("[")
		for i := 0; i < v.Len(); i++ {
			if w.full() {
				return
			}
			if i > 0 {
				w.put(" ")
			}
			w.value(v.Index(i), depth+1)
		}
		w.put("]")
	case reflect.Map:
		if v.IsNil() {
			w.put("nil")
			return
		}
		w.put("map[")
		keys := v.MapKeys()
		if len(keys) <= 1000 {
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		}
		for i, k := range keys {
			if w.full() {
				return
			}
			if i > 0 {
				w.put(" ")
			}
			w.value(k, depth+1)
			w.put(":")
			w.value(v.MapIndex(k), depth+1)
		}
		w.put("]")
	case reflect.Struct:
		w.put("{")
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if w.full() {
				return
			}
			if i > 0 {
				w.put(" ")
			}
			// gomacro names the unexported fields of a cell's struct
			// types with a prefix (base.StrGensymPrivate)
			w.put(strings.TrimPrefix(t.Field(i).Name, base.StrGensymPrivate) + ":")
			w.value(v.Field(i), depth+1)
		}
		w.put("}")
	case reflect.Pointer:
		switch {
		case v.IsNil():
			w.put("nil")
		case depth == 0:
			w.put("&")
			w.value(v.Elem(), depth+1)
		default:
			w.put(fmt.Sprintf("%#x", v.Pointer()))
		}
	case reflect.Interface:
		if v.IsNil() {
			w.put("nil")
			return
		}
		w.value(v.Elem(), depth)
	case reflect.Func:
		if v.IsNil() {
			w.put("nil")
			return
		}
		w.put("func")
	case reflect.Chan:
		if v.IsNil() {
			w.put("nil")
			return
		}
		w.put(fmt.Sprintf("chan (len %d, cap %d)", v.Len(), v.Cap()))
	default:
		w.put(fmt.Sprint(v))
	}
}

// matchType reports whether a variable passes %who's type filter: its Go
// type or its kind (int, slice, map, struct, func, ptr …) is one of want.
func matchType(v Variable, want []string) bool {
	if len(want) == 0 {
		return true
	}
	kind := ""
	if v.value.IsValid() {
		kind = v.value.Kind().String()
	}
	for _, w := range want {
		if w == v.Type || w == kind || w == "func" && v.Kind == "func" || w == "pointer" && kind == "ptr" {
			return true
		}
	}
	return false
}

func (s *Session) whoList(args string) ([]Variable, string) {
	want := strings.Fields(args)
	var vs []Variable
	for _, v := range s.Variables() {
		if matchType(v, want) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		if len(want) > 0 {
			return nil, "No variables match your requested type.\n"
		}
		return nil, "Interactive namespace is empty.\n"
	}
	return vs, ""
}

// magicWho is %who: the names, as IPython prints them (tab-separated,
// nine to a line).
func (s *Session) magicWho(m magicCall) ([]xr.Value, []xr.Type, *Error) {
	vs, empty := s.whoList(m.args)
	if vs == nil {
		fmt.Fprint(os.Stdout, empty)
		return nil, nil, nil
	}
	var b strings.Builder
	for i, v := range vs {
		b.WriteString(v.Name + "\t ")
		if i%9 == 8 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	fmt.Fprint(os.Stdout, b.String())
	return nil, nil, nil
}

// magicWhos is %whos: IPython's table of name, type and data (n=length
// for slices, arrays and maps, else the value, its middle cut past 50
// characters).
func (s *Session) magicWhos(m magicCall) ([]xr.Value, []xr.Type, *Error) {
	vs, empty := s.whoList(m.args)
	if vs == nil {
		fmt.Fprint(os.Stdout, empty)
		return nil, nil, nil
	}
	const colsep = 3
	vw, tw := len("Variable"), len("Type")
	for _, v := range vs {
		vw, tw = max(vw, len(v.Name)), max(tw, len(v.Type))
	}
	vw, tw = vw+colsep, tw+colsep
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s%-*s Data/Info\n%s\n", vw, "Variable", tw, "Type", strings.Repeat("-", vw+tw+len("Data/Info")+1))
	for _, v := range vs {
		data := v.Value
		switch k := v.value.Kind(); {
		case v.Kind == "func":
			data = "func"
		case k == reflect.Slice || k == reflect.Array || k == reflect.Map:
			data = "n=" + strconv.Itoa(v.Len)
		default:
			data = strings.ReplaceAll(data, "\n", `\n`)
			if r := []rune(data); len(r) >= 50 {
				data = string(r[:25]) + "<...>" + string(r[len(r)-25:])
			}
		}
		fmt.Fprintf(&b, "%-*s%-*s %s\n", vw, v.Name, tw, v.Type, data)
	}
	fmt.Fprint(os.Stdout, b.String())
	return nil, nil, nil
}

// magicEnv is IPython's %env: no argument lists the environment (as a
// value; names holding KEY, TOKEN or SECRET show <hidden>), one name shows
// its value, NAME=VALUE or NAME VALUE sets it and prints "env: NAME=VALUE".
func (s *Session) magicEnv(m magicCall) ([]xr.Value, []xr.Type, *Error) {
	args := strings.TrimSpace(m.args)
	if args == "" {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			l := strings.ToLower(k)
			if strings.Contains(l, "key") || strings.Contains(l, "token") || strings.Contains(l, "secret") {
				v = "<hidden>"
			}
			env[k] = v
		}
		return []xr.Value{xr.ValueOf(env)}, []xr.Type{s.ir.Comp.TypeOf(env)}, nil
	}
	sep := " "
	if strings.Contains(args, "=") {
		sep = "="
	}
	k, v, set := strings.Cut(args, sep)
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !set {
		val, ok := os.LookupEnv(k)
		if !ok {
			return nil, nil, usageError(m.argsLine, "Environment does not have key: "+k)
		}
		return []xr.Value{xr.ValueOf(val)}, []xr.Type{s.ir.Comp.TypeOf(val)}, nil
	}
	if k == "" || strings.ContainsAny(k, " \t") {
		return nil, nil, usageError(m.argsLine, fmt.Sprintf("refusing to set env var with whitespace: '%s'", k))
	}
	if err := os.Setenv(k, v); err != nil {
		return nil, nil, usageError(m.argsLine, fmt.Sprintf("%%env: cannot set %s: %v", k, err))
	}
	fmt.Fprintf(os.Stdout, "env: %s=%s\n", k, v)
	return nil, nil, nil
}
