package eval

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strings"

	"github.com/cosmos72/gomacro/base"
	greflect "github.com/cosmos72/gomacro/base/reflect"
	"github.com/cosmos72/gomacro/fast"
	xr "github.com/cosmos72/gomacro/xreflect"
)

// atName is the marker the rewritten cell calls before each of its
// top-level units (see [site]): __veclab_at(k) says unit k runs now.
const atName = "__veclab_at"

// unit is one top-level piece of a cell that runs code: a statement, an
// expression, or a run of declarations holding var initializers (gomacro
// sorts such a run by its dependencies, so no marker can go between them:
// the unit spans their lines).
type unit struct {
	first, last int      // cell lines (1-based)
	decls       bool     // a run of declarations
	node        ast.Node // the statement or expression (nil for declarations)
}

// site is what the session knows about where the running cell is: its
// code, the file gomacro's parser gave it, its rewritten top-level nodes,
// its units and the unit running now (set by the markers).
type site struct {
	code  string
	file  *token.File
	seq   uint64 // the cell's sequence number (Session.cell)
	nodes []ast.Node
	units []unit
	cur   int // index in units of the running unit (set by the markers)
}

// fault is where a runtime panic of the cell happened: the top-level unit
// and, when gomacro's call stack says so, the innermost statement (inside
// a loop body or a function the cell called) with the scope it ran in.
type fault struct {
	unit unit
	ok   bool      // unit is known
	pos  token.Pos // innermost statement (NoPos: unknown)
	in   *site     // the cell pos lies in: this one or an earlier one
	stmt ast.Node  // the innermost statement, when known without pos
	env  *fast.Env // the env the innermost statement ran in
}

// markUnits inserts a marker call before every top-level unit of the
// rewritten cell except the first (whose number the session sets before
// the cell runs), and records the units in st. gomacro sorts a run of
// top-level statements by position (base/dep's Sorter, with sort.Slice,
// which is not stable), so a marker takes a position strictly between
// the node before it and the node it marks; with no such position (a
// one-character statement and a receive side by side) the unit goes
// unmarked and the error names the unit before it.
func markUnits(st *site, out []ast.Node, line func(token.Pos) int) ([]ast.Node, bool) {
	type group struct {
		start, end int // out[start:end] belong to the unit
		u          unit
	}
	var groups []group
	for i := 0; i < len(out); i++ {
		n := out[i]
		switch n.(type) {
		case *ast.GenDecl, *ast.FuncDecl:
			// A run of declarations: a unit if it has var initializers.
			j := i
			u := unit{decls: true}
			for ; j < len(out); j++ {
				if _, ok := out[j].(ast.Decl); !ok {
					break
				}
				if g, ok := out[j].(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, sp := range g.Specs {
						if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) > 0 {
							l := line(vs.Pos())
							if u.first == 0 {
								u.first = l
							}
							u.last = line(vs.End())
						}
					}
				}
			}
			if u.first > 0 {
				groups = append(groups, group{start: i, end: j, u: u})
			}
			i = j - 1
		case ast.Stmt, ast.Expr:
			if inserted(n) {
				continue // joined to the unit after it, below
			}
			groups = append(groups, group{start: i, end: i + 1, u: unit{first: line(n.Pos()), last: line(n.End()), node: n}})
		}
	}
	// Inserted statements (rewritten receives) belong to the unit after
	// them: extend each statement group back over them.
	for k := range groups {
		for groups[k].start > 0 && inserted(out[groups[k].start-1]) && (k == 0 || groups[k-1].end < groups[k].start) {
			groups[k].start--
		}
	}
	if len(groups) == 0 {
		return out, false
	}
	st.units = make([]unit, len(groups))
	for k, g := range groups {
		st.units[k] = g.u
	}
	if len(groups) == 1 {
		return out, false
	}
	res := make([]ast.Node, 0, len(out)+len(groups))
	next := 0
	for k, g := range groups {
		res = append(res, out[next:g.start]...)
		next = g.start
		if k == 0 {
			continue
		}
		at := out[g.start].Pos() - 1
		var lower token.Pos
		if g.start > 0 {
			if _, isDecl := out[g.start-1].(ast.Decl); !isDecl {
				lower = out[g.start-1].Pos()
			}
		}
		if !out[g.start].Pos().IsValid() || at <= lower || at < 1 {
			continue
		}
		res = append(res, &ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.Ident{Name: atName, NamePos: at}, Lparen: at, Rparen: at,
			Args: []ast.Expr{&ast.BasicLit{ValuePos: at, Kind: token.INT, Value: fmt.Sprint(k)}}}})
	}
	res = append(res, out[next:]...)
	return res, true
}

// inserted reports whether n is a statement the rewriter put before a
// top-level := receive (its temporary, or the wait).
func inserted(n ast.Node) bool {
	switch s := n.(type) {
	case *ast.AssignStmt:
		if id, ok := s.Lhs[0].(*ast.Ident); ok && strings.HasPrefix(id.Name, chanName) {
			return true
		}
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == waitName {
				return true
			}
		}
	}
	return false
}

// noDebugger is the session's gomacro debugger: the debugger option is on
// only for the scopes it keeps (see [Session.runExpr]); a breakpoint (a
// "break" statement) goes on.
type noDebugger struct{}

func (noDebugger) Breakpoint(*fast.Interp, *fast.Env) fast.DebugOp { return fast.DebugOpContinue }
func (noDebugger) At(*fast.Interp, *fast.Env) fast.DebugOp         { return fast.DebugOpContinue }

// runExpr runs a compiled cell as fast.Interp.RunExpr does (gomacro
// v0.0.0-20240506194242-2ff796e3da10, fast/repl.go: prepare the env,
// give an untyped constant its default type, set Run.CurrEnv, call the
// compiled function, pack its values), through gomacro's exported API,
// and on a
// panic records where it happened before gomacro's call-stack bookkeeping
// is unwound: RunExpr restores Run.CurrEnv in a deferred call, and by the
// time a recover above it runs, the innermost env is gone. The session
// switches on gomacro's debugger option, so that each env keeps its
// compile-time scope (Env.DebugComp) and the operands of the failing
// statement can be evaluated in it ([indexDetail]).
func (s *Session) runExpr(e *fast.Expr, st *site, f *fault) ([]xr.Value, []xr.Type) {
	if e == nil {
		return nil, nil
	}
	var (
		v  xr.Value
		vs []xr.Value
	)
	s.inEnv(e, st, f, func(env *fast.Env, fun func(*fast.Env) (xr.Value, []xr.Value)) { v, vs = fun(env) })
	return greflect.PackValues(v, vs), greflect.PackTypes(e.Type, e.Types)
}

// inEnv prepares the session's top-level env for running e as runExpr
// does (gomacro's call-stack bookkeeping set, and restored after, a panic
// located first) and calls body with it and e's compiled function. %timeit
// runs that function many times in one body (magic.go), so that a loop
// costs a closure call, not an env set-up.
func (s *Session) inEnv(e *fast.Expr, st *site, f *fault, body func(env *fast.Env, fun func(*fast.Env) (xr.Value, []xr.Value))) {
	env := s.ir.PrepareEnv()
	if s.ir.Comp.Globals.Options&base.OptKeepUntyped == 0 && e.Untyped() {
		e.ConstTo(e.DefaultType())
	}
	runs := []*fast.Run{env.Run}
	if r := s.evalRun.Load(); r != nil && r != env.Run {
		runs = append(runs, r)
	}
	saved := make([]*fast.Env, len(runs))
	for i, r := range runs {
		saved[i], r.CurrEnv = r.CurrEnv, env
		r.DebugDepth = 0
		r.Signals.Debug = base.SigNone
	}
	defer func() {
		if r := recover(); r != nil {
			safely(func() { f.locate(st, s.earlier(), env, runs) })
			for i, r := range runs {
				r.CurrEnv = saved[i]
			}
			panic(r)
		}
		for i, r := range runs {
			r.CurrEnv = saved[i]
		}
	}()
	body(env, e.AsXV(fast.COptKeepUntyped))
}

// locate fills f from the running unit and gomacro's current env: the
// innermost env of the evaluating goroutine (a function the cell called)
// if there is one, else of the interpreter's own (a loop body at the top
// level). Its statement position is trusted when it lies in this cell
// (inside the running unit, for top-level code) or, for a function, in
// an earlier cell (earlier, newest last).
func (f *fault) locate(st *site, earlier []*site, top *fast.Env, runs []*fast.Run) {
	if st == nil {
		return
	}
	if st.cur >= 0 && st.cur < len(st.units) {
		f.unit, f.ok = st.units[st.cur], true
	}
	env := top
	for i := len(runs) - 1; i >= 0; i-- {
		if e := runs[i].CurrEnv; e != nil && e != top {
			env = e
			break
		}
	}
	if pos, in := trusted(st, earlier, env, top, f); in != nil {
		f.pos, f.in, f.env = pos, in, env
		return
	}
	if env == top && f.ok && f.unit.node != nil {
		// A bare expression at the top level runs outside gomacro's
		// statement list (its position is not recorded): it is the unit.
		f.stmt, f.env = f.unit.node, env
	}
}

// trusted returns the position of the statement env is running and the
// cell it lies in, when that is this cell or, for a function's env, an
// earlier one; for code of the top-level env (whose position is left over
// from the last compiled statement when a bare expression runs), only
// inside the running unit.
func trusted(st *site, earlier []*site, env, top *fast.Env, f *fault) (token.Pos, *site) {
	if env.IP < 0 || env.IP >= len(env.DebugPos) {
		return token.NoPos, nil
	}
	pos := env.DebugPos[env.IP]
	if !pos.IsValid() {
		return token.NoPos, nil
	}
	if topLevel(env, top) {
		if !f.ok || !st.holds(pos) {
			return token.NoPos, nil
		}
		if l := st.lineOf(pos); l < f.unit.first || l > f.unit.last {
			return token.NoPos, nil
		}
		return pos, st
	}
	if st.holds(pos) {
		return pos, st
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		if earlier[i].holds(pos) {
			return pos, earlier[i]
		}
	}
	return token.NoPos, nil
}

// lineOf returns the cell line of pos (0 when it is not in the cell). It
// reads only the cell's own token.File (safe from any goroutine), not
// gomacro's file set.
func (st *site) lineOf(pos token.Pos) int {
	if !st.holds(pos) {
		return 0
	}
	off := st.file.Offset(pos)
	if off > len(st.code) {
		return 0
	}
	return strings.Count(st.code[:off], "\n") + 1
}

// holds reports whether pos lies in the cell.
func (st *site) holds(pos token.Pos) bool {
	return st != nil && st.file != nil && int(pos) >= st.file.Base() && int(pos) <= st.file.Base()+st.file.Size()
}

// Earlier cells kept to name the lines of functions they defined: the
// newest maxHistory cells, and fewer when their code passes
// maxHistoryBytes.
const (
	maxHistory      = 256
	maxHistoryBytes = 4 << 20
)

// remember keeps st (a cell that compiled) in the history.
func (s *Session) remember(st *site) {
	if st == nil || st.file == nil {
		return
	}
	s.histMu.Lock()
	defer s.histMu.Unlock()
	s.history = append(s.history, st)
	size := 0
	for i := len(s.history) - 1; i >= 0; i-- {
		size += len(s.history[i].code)
		if len(s.history)-i > maxHistory || size > maxHistoryBytes {
			s.history = append([]*site(nil), s.history[i+1:]...)
			break
		}
	}
}

// topLevel reports whether env is the cell's top-level env or a block
// nested in it (not the body of a function: that env has a Caller).
func topLevel(env, top *fast.Env) bool {
	for e := env; e != nil; e = e.Outer {
		if e == top {
			return true
		}
		if e.Caller != nil {
			return false
		}
	}
	return false
}

// boundsKind says what a reflect panic message is about: an index
// ("reflect: slice index out of range", "reflect: array index out of
// range", "reflect: string index out of range") or a slice expression
// ("reflect.Value.Slice: slice index out of bounds", Slice3 likewise).
func boundsKind(r any) (index, slice bool) {
	msg, ok := r.(string)
	if !ok {
		return false, false
	}
	switch {
	case strings.HasPrefix(msg, "reflect: ") && strings.HasSuffix(msg, " index out of range"):
		return true, false
	case strings.HasPrefix(msg, "reflect.Value.Slice") && strings.HasSuffix(msg, "index out of bounds"):
		return false, true
	}
	return false, false
}

// stmtAt returns what to look at for the statement of the cell gomacro
// recorded pos for: the innermost statement (or var spec) whose text holds
// pos. gomacro records a position inside the statement (the last operand
// it compiled, at times), not always its start. A case clause stands for
// its switch's header and its own expressions; a top-level expression
// (not a statement in gomacro's parser) for itself.
func stmtAt(nodes []ast.Node, pos token.Pos) []ast.Node {
	var best, parent ast.Node
	for _, n := range nodes {
		if !n.Pos().IsValid() || pos < n.Pos() || pos >= n.End() {
			continue
		}
		if _, ok := n.(ast.Expr); ok {
			best = n
		}
		var stack []ast.Node // enclosing statements
		ast.Inspect(n, func(x ast.Node) bool {
			if x == nil {
				return false
			}
			if pos < x.Pos() || pos >= x.End() {
				return false
			}
			switch x.(type) {
			case *ast.BlockStmt:
			case ast.Stmt, *ast.ValueSpec:
				if len(stack) > 0 {
					parent = stack[len(stack)-1]
				}
				best = x
				stack = append(stack, x)
			}
			return true
		})
		break
	}
	if cc, ok := best.(*ast.CaseClause); ok {
		list := []ast.Node{parent}
		for _, e := range cc.List {
			list = append(list, e)
		}
		return list
	}
	if best == nil {
		return nil
	}
	return []ast.Node{best}
}

// boundsExprs lists the index and slice expressions a statement evaluates
// itself, operands before the expression using them, the right-hand side
// of an assignment before its left, and not those of nested blocks, case
// clauses or function literals (statements of their own, with their own
// position).
func boundsExprs(ns ...ast.Node) []ast.Expr {
	var list []ast.Expr
	for _, n := range ns {
		list = append(list, boundsExprsOf(n)...)
	}
	return list
}

func boundsExprsOf(n ast.Node) []ast.Expr {
	var list []ast.Expr
	visit := func(root ast.Node) {
		if root != nil && !reflect.ValueOf(root).IsNil() {
			ast.Inspect(root, func(x ast.Node) bool { return collect(x, &list) })
		}
	}
	if a, ok := n.(*ast.AssignStmt); ok {
		for _, x := range a.Rhs {
			visit(x)
		}
		for _, x := range a.Lhs {
			visit(x)
		}
		return list
	}
	visit(n)
	return list
}

// collect adds the index and slice expressions under y, in post-order.
func collect(y ast.Node, list *[]ast.Expr) bool {
	sub := func(zs ...ast.Expr) {
		for _, z := range zs {
			if z != nil {
				ast.Inspect(z, func(w ast.Node) bool { return collect(w, list) })
			}
		}
	}
	switch v := y.(type) {
	case *ast.BlockStmt, *ast.FuncLit, *ast.CaseClause, *ast.CommClause:
		return false
	case *ast.IndexExpr:
		sub(v.X, v.Index)
		*list = append(*list, v)
		return false
	case *ast.SliceExpr:
		sub(v.X, v.Low, v.High, v.Max)
		*list = append(*list, v)
		return false
	}
	return true
}

// pure reports whether evaluating x again cannot change anything: names,
// literals (composite ones of pure elements), field and package
// selectors, index expressions, dereferences,
// arithmetic and comparisons of those, conversions to a named type and the
// builtins len and cap. Calls (other than those), receives, composite
// literals and function literals are not pure. c resolves names in the
// scope the statement ran in, so that a shadowed len or a variable named
// like a type is not taken for the builtin or the conversion.
func pure(c *fast.Comp, x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.Ident:
		return v.Name != "_"
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pure(c, v.X)
	case *ast.SelectorExpr:
		return pure(c, v.X)
	case *ast.StarExpr:
		return pure(c, v.X)
	case *ast.IndexExpr:
		return pure(c, v.X) && pure(c, v.Index)
	case *ast.UnaryExpr:
		return (v.Op == token.SUB || v.Op == token.ADD || v.Op == token.XOR || v.Op == token.NOT) && pure(c, v.X)
	case *ast.BinaryExpr:
		return pure(c, v.X) && pure(c, v.Y)
	case *ast.CompositeLit:
		for _, el := range v.Elts {
			if !pure(c, el) {
				return false
			}
		}
		return true
	case *ast.KeyValueExpr:
		return pure(c, v.Key) && pure(c, v.Value)
	case *ast.CallExpr:
		id, ok := v.Fun.(*ast.Ident)
		if !ok || len(v.Args) != 1 || v.Ellipsis.IsValid() || !pure(c, v.Args[0]) {
			return false
		}
		sym := c.TryResolve(id.Name)
		if sym == nil {
			return c.TryResolveType(id.Name) != nil // a conversion
		}
		if _, builtin := sym.Value.(fast.Builtin); builtin {
			return id.Name == "len" || id.Name == "cap"
		}
	}
	return false
}

// value evaluates the pure expression x in env, compiled in c; ok is
// false when it does not compile or panics.
func value(c *fast.Comp, env *fast.Env, x ast.Expr) (v reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e := c.Expr(x, nil)
	if e == nil {
		return reflect.Value{}, false
	}
	if e.Untyped() {
		e.ConstTo(e.DefaultType())
	}
	xv := e.AsX1()(env)
	if !xv.IsValid() {
		return reflect.Value{}, false
	}
	rv := xv.ReflectValue()
	return rv, rv.IsValid()
}

func intOf(v reflect.Value) (int64, bool) {
	switch {
	case v.CanInt():
		return v.Int(), true
	case v.CanUint():
		return int64(v.Uint()), v.Uint() <= 1<<62
	}
	return 0, false
}

// indexDetail finds, among the index (or slice) expressions the failing
// statement evaluates, the first whose operands, evaluated again in the
// statement's scope, are out of range, and returns Go's message for it
// (the text of runtime.boundsError, runtime/error.go: "index out of range
// [7] with length 4", "slice bounds out of range [:5] with capacity 2").
// Only pure operands are evaluated (see [pure]): nothing the cell does is
// run twice. "" when none is found, or the scope is unknown.
func indexDetail(stmt []ast.Node, env *fast.Env, index, slice bool) string {
	if len(stmt) == 0 || env == nil || env.DebugComp == nil {
		return ""
	}
	c := env.DebugComp
	for _, x := range boundsExprs(stmt...) {
		switch v := x.(type) {
		case *ast.IndexExpr:
			if !index || !pure(c, v.X) || !pure(c, v.Index) {
				continue
			}
			if m := indexMessage(c, env, v); m != "" {
				return m
			}
		case *ast.SliceExpr:
			if !slice {
				continue
			}
			if m := sliceMessage(c, env, v); m != "" {
				return m
			}
		}
	}
	return ""
}

// operand evaluates the indexed operand and returns its length and
// capacity (a pointer to an array is indexed as the array); ok is false
// for a map or anything that is not indexed by position.
func operand(c *fast.Comp, env *fast.Env, x ast.Expr) (length, capacity int, isSlice, ok bool) {
	xv, ok := value(c, env, x)
	if !ok {
		return 0, 0, false, false
	}
	if xv.Kind() == reflect.Pointer && xv.Type().Elem().Kind() == reflect.Array {
		if xv.IsNil() {
			return 0, 0, false, false
		}
		xv = xv.Elem()
	}
	switch xv.Kind() {
	case reflect.Slice:
		return xv.Len(), xv.Cap(), true, true
	case reflect.Array, reflect.String:
		return xv.Len(), xv.Len(), false, true
	}
	return 0, 0, false, false
}

func indexMessage(c *fast.Comp, env *fast.Env, v *ast.IndexExpr) string {
	n, _, _, ok := operand(c, env, v.X)
	if !ok {
		return ""
	}
	iv, ok := value(c, env, v.Index)
	if !ok {
		return ""
	}
	i, ok := intOf(iv)
	switch {
	case !ok:
		return ""
	case i < 0:
		return fmt.Sprintf("index out of range [%d]", i)
	case i >= int64(n):
		return fmt.Sprintf("index out of range [%d] with length %d", i, n)
	}
	return ""
}

// sliceMessage checks x[low:high:max] as the Go runtime does (max against
// the capacity, then high against max, then low against high) and words
// the failure as it does: a slice's bound is checked against its
// capacity, an array's or a string's against its length.
func sliceMessage(c *fast.Comp, env *fast.Env, v *ast.SliceExpr) string {
	for _, y := range []ast.Expr{v.X, v.Low, v.High, v.Max} {
		if y != nil && !pure(c, y) {
			return ""
		}
	}
	n, capacity, isSlice, ok := operand(c, env, v.X)
	if !ok {
		return ""
	}
	bound := func(y ast.Expr, def int) (int64, bool) {
		if y == nil {
			return int64(def), true
		}
		iv, ok := value(c, env, y)
		if !ok {
			return 0, false
		}
		return intOf(iv)
	}
	limit, what := int64(n), "length"
	if isSlice {
		limit, what = int64(capacity), "capacity"
	}
	low, ok1 := bound(v.Low, 0)
	if v.Slice3 {
		high, ok2 := bound(v.High, 0)
		max, ok3 := bound(v.Max, 0)
		switch {
		case !ok1 || !ok2 || !ok3:
		case max < 0 || max > limit:
			return fmt.Sprintf("slice bounds out of range [::%d] with %s %d", max, what, limit)
		case high < 0 || high > max:
			return fmt.Sprintf("slice bounds out of range [:%d:%d]", high, max)
		case low < 0 || low > high:
			return fmt.Sprintf("slice bounds out of range [%d:%d:]", low, high)
		}
		return ""
	}
	high, ok2 := bound(v.High, n)
	switch {
	case !ok1 || !ok2:
	case high < 0 || high > limit:
		return fmt.Sprintf("slice bounds out of range [:%d] with %s %d", high, what, limit)
	case low < 0 || low > high:
		return fmt.Sprintf("slice bounds out of range [%d:%d]", low, high)
	}
	return ""
}

// lineText returns line l of code, trimmed.
func lineText(code string, l int) string {
	lines := strings.Split(code, "\n")
	if l < 1 || l > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[l-1])
}

// placeRuntime adds to a runtime panic's Error the cell line (the
// innermost statement's, and the top-level unit's when it differs) and,
// for an index or slice error, Go's message naming the index and length.
func placeRuntime(e *Error, r any, st *site, f *fault) {
	if st == nil || !f.ok {
		return
	}
	var stmt []ast.Node
	if f.stmt != nil {
		stmt = []ast.Node{f.stmt}
	}
	if f.pos.IsValid() {
		stmt = stmtAt(f.in.nodes, f.pos)
	}
	if index, slice := boundsKind(r); index || slice {
		if m := indexDetail(stmt, f.env, index, slice); m != "" {
			e.Name, e.Value = "runtime error", m
		}
	}
	var where, tb []string
	add := func(label, text string) {
		where = append(where, label+": "+text)
		tb = append(tb, label+":", "    "+text)
	}
	top := f.unit.first
	switch inner := 0; {
	case f.pos.IsValid() && f.in != st:
		inner = f.in.lineOf(f.pos)
		add(fmt.Sprintf("line %d of the cell starting %q", inner, lineText(f.in.code, 1)), lineText(f.in.code, inner))
		add(fmt.Sprintf("reached from cell line %d", top), lineText(st.code, top))
	case f.pos.IsValid():
		inner = st.lineOf(f.pos)
		if f.unit.decls || inner == top {
			// one declaration of a run: no statement reached it
			add(fmt.Sprintf("cell line %d", inner), lineText(st.code, inner))
			break
		}
		add(fmt.Sprintf("cell line %d", inner), lineText(st.code, inner))
		add(fmt.Sprintf("reached from cell line %d", top), lineText(st.code, top))
	case f.unit.decls && f.unit.last != top:
		add(fmt.Sprintf("cell lines %d–%d", top, f.unit.last), lineText(st.code, top))
	default:
		add(fmt.Sprintf("cell line %d", top), lineText(st.code, top))
	}
	e.Value += " (" + strings.Join(where, ", ") + ")"
	e.Traceback = append([]string{e.Name + ": " + e.Value}, tb...)
}

// placeCallback adds to the Error of a panic in a function run by
// [Session.Call] (a widget callback) the line of the cell that defined the
// failing statement, and names the index and length of an index or slice
// error there; env is the innermost env the panic left.
func placeCallback(e *Error, r any, earlier []*site, env *fast.Env) {
	if env == nil || env.IP < 0 || env.IP >= len(env.DebugPos) {
		return
	}
	pos := env.DebugPos[env.IP]
	var in *site
	for i := len(earlier) - 1; i >= 0 && pos.IsValid(); i-- {
		if earlier[i].holds(pos) {
			in = earlier[i]
			break
		}
	}
	if in == nil {
		return
	}
	if index, slice := boundsKind(r); index || slice {
		if m := indexDetail(stmtAt(in.nodes, pos), env, index, slice); m != "" {
			e.Name, e.Value = "runtime error", m
		}
	}
	l := in.lineOf(pos)
	label := fmt.Sprintf("line %d of the cell starting %q", l, lineText(in.code, 1))
	e.Value += " (" + label + ": " + lineText(in.code, l) + ")"
	e.Traceback = []string{e.Name + ": " + e.Value, label + ":", "    " + lineText(in.code, l)}
}

// earlier returns the cells kept (a copy of the list: goroutines a cell
// started read it while the next cell is remembered).
func (s *Session) earlier() []*site {
	s.histMu.Lock()
	defer s.histMu.Unlock()
	return append([]*site(nil), s.history...)
}

// goroutineWhere names the cell line of the statement a goroutine a cell
// started was running when it panicked (env: the innermost env the panic
// left on the goroutine's gomacro Run), "" when it is not known. It only
// reads: the index is not evaluated again, since that compiles code, and
// gomacro's compiler may be compiling the next cell on another goroutine.
func (s *Session) goroutineWhere(env *fast.Env, cell uint64) string {
	if env == nil || env.IP < 0 || env.IP >= len(env.DebugPos) {
		return ""
	}
	pos := env.DebugPos[env.IP]
	sites := s.earlier()
	for i := len(sites) - 1; i >= 0 && pos.IsValid(); i-- {
		in := sites[i]
		if !in.holds(pos) {
			continue
		}
		l := in.lineOf(pos)
		if in.seq == cell {
			return fmt.Sprintf(" (cell line %d: %s)", l, lineText(in.code, l))
		}
		return fmt.Sprintf(" (line %d of the cell starting %q: %s)", l, lineText(in.code, 1), lineText(in.code, l))
	}
	return ""
}

// safely runs f, dropping a panic: the placing of an error only adds to
// the cell's message, and a flaw in it must not replace that message or
// escape Eval.
func safely(f func()) {
	defer func() { _ = recover() }()
	f()
}
