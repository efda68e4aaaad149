package widget

import (
	"fmt"
	"math"
	"strings"

	"github.com/veclab/veclab/kernel/comm"
)

// state returns the six keys that name a model and its view.
func names(module, version, model, view string) map[string]any {
	var viewModule, viewVersion, viewName any = module, version, view
	if view == "" { // a model without a view (Link)
		viewName = nil
	}
	return map[string]any{"_model_module": module, "_model_module_version": version, "_model_name": model,
		"_view_module": viewModule, "_view_module_version": viewVersion, "_view_name": viewName}
}

// NewLayout returns a LayoutModel (@jupyter-widgets/base 2.0.0) with every
// CSS attribute unset; Set("width", "300px") sets one.
func NewLayout() *Widget {
	return must(names(baseModule, baseVersion, "LayoutModel", "LayoutView"))
}

// newStyle returns a style model of @jupyter-widgets/controls (its view is
// base's StyleView) with the spec's defaults for its keys.
func newStyle(model string, fields map[string]any) *Widget {
	st := names(controlsModule, controlsVer, model, "StyleView")
	st["_view_module"] = baseModule
	st["_view_module_version"] = baseVersion
	for k, v := range fields {
		st[k] = v
	}
	return must(st)
}

// styles are the style models of the controls, with the spec's defaults.
var styles = map[string]map[string]any{
	"SliderStyleModel":        {"description_width": "", "handle_color": nil},
	"DescriptionStyleModel":   {"description_width": ""},
	"ToggleButtonsStyleModel": {"button_width": "", "description_width": "", "font_weight": ""},
	"CheckboxStyleModel":      {"background": nil, "description_width": ""},
	"ButtonStyleModel": {"button_color": nil, "font_family": nil, "font_size": nil, "font_style": nil,
		"font_variant": nil, "font_weight": nil, "text_color": nil, "text_decoration": nil},
	"TextStyleModel": {"background": nil, "description_width": "", "font_size": nil, "text_color": nil},
	"LabelStyleModel": {"background": nil, "description_width": "", "font_family": nil, "font_size": nil,
		"font_style": nil, "font_variant": nil, "font_weight": nil, "text_color": nil, "text_decoration": nil},
	"HTMLStyleModel": {"background": nil, "description_width": "", "font_size": nil, "text_color": nil},
}

// control creates a DOM widget of @jupyter-widgets/controls: its layout,
// its style (style "" for none) and fields over the common DOM keys.
func control(model, view, style string, fields map[string]any) *Widget {
	st := names(controlsModule, controlsVer, model, view)
	st["_dom_classes"] = []any{}
	st["tabbable"] = nil
	st["tooltip"] = nil
	st["layout"] = NewLayout().Ref()
	if style != "" {
		st["style"] = newStyle(style, styles[style]).Ref()
	}
	for k, v := range fields {
		st[k] = v
	}
	return must(st)
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return math.NaN()
}

func integer(v any) int {
	f := num(v)
	if math.IsNaN(f) {
		return 0
	}
	return int(math.Round(f))
}

// slider fields common to the three sliders (spec defaults).
func sliderFields(description string) map[string]any {
	return map[string]any{"description": description, "description_allow_html": false, "disabled": false,
		"behavior": "drag-tap", "continuous_update": true, "orientation": "horizontal", "readout": true}
}

// IntSlider is an IntSliderModel: an integer in [min, max] by step.
type IntSlider struct{ *Widget }

// NewIntSlider returns a slider over [min, max] in steps of 1 starting at
// value (clamped into the range; min > max is swapped).
func NewIntSlider(description string, value, min, max int) *IntSlider {
	if min > max {
		min, max = max, min
	}
	value = clampInt(value, min, max)
	f := sliderFields(description)
	f["value"], f["min"], f["max"], f["step"], f["readout_format"] = value, min, max, 1, "d"
	return &IntSlider{control("IntSliderModel", "IntSliderView", "SliderStyleModel", f)}
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Value returns the slider's value.
func (s *IntSlider) Value() int { return integer(s.Get("value")) }

// SetValue moves the slider (clamped into its range).
func (s *IntSlider) SetValue(v int) error {
	return s.Set("value", clampInt(v, integer(s.Get("min")), integer(s.Get("max"))))
}

// SetStep sets the step (≥ 1).
func (s *IntSlider) SetStep(step int) error {
	if step < 1 {
		return fmt.Errorf("widget: IntSlider step %d < 1", step)
	}
	return s.Set("step", step)
}

// OnChange runs f after the value changes.
func (s *IntSlider) OnChange(f func()) { s.Observe("value", f) }

// FloatSlider is a FloatSliderModel.
type FloatSlider struct{ *Widget }

// NewFloatSlider returns a slider over [min, max] by step (> 0).
func NewFloatSlider(description string, value, min, max, step float64) *FloatSlider {
	if min > max {
		min, max = max, min
	}
	if !(step > 0) {
		step = (max - min) / 100
	}
	f := sliderFields(description)
	f["value"], f["min"], f["max"], f["step"], f["readout_format"] = math.Min(math.Max(value, min), max), min, max, step, ".2f"
	return &FloatSlider{control("FloatSliderModel", "FloatSliderView", "SliderStyleModel", f)}
}

// Value returns the slider's value.
func (s *FloatSlider) Value() float64 { return num(s.Get("value")) }

// SetValue moves the slider.
func (s *FloatSlider) SetValue(v float64) error { return s.Set("value", v) }

// OnChange runs f after the value changes.
func (s *FloatSlider) OnChange(f func()) { s.Observe("value", f) }

// FloatLogSlider is a FloatLogSliderModel: the handle moves over exponents
// [minExp, maxExp] of base 10, the value is 10^exponent.
type FloatLogSlider struct{ *Widget }

// NewFloatLogSlider returns a log slider from 10^minExp to 10^maxExp
// (exponent step 0.1).
func NewFloatLogSlider(description string, value, minExp, maxExp float64) *FloatLogSlider {
	if minExp > maxExp {
		minExp, maxExp = maxExp, minExp
	}
	f := sliderFields(description)
	f["value"], f["min"], f["max"], f["step"], f["base"], f["readout_format"] = value, minExp, maxExp, 0.1, 10.0, ".3g"
	return &FloatLogSlider{control("FloatLogSliderModel", "FloatLogSliderView", "SliderStyleModel", f)}
}

// Value returns the slider's value (not its exponent).
func (s *FloatLogSlider) Value() float64 { return num(s.Get("value")) }

// SetValue moves the slider.
func (s *FloatLogSlider) SetValue(v float64) error { return s.Set("value", v) }

// OnChange runs f after the value changes.
func (s *FloatLogSlider) OnChange(f func()) { s.Observe("value", f) }

// selection is the kernel side of ipywidgets 8's selection models: the
// front end syncs the index into _options_labels.
type selection struct{ *Widget }

func newSelection(model, view, style, description string, options []string, value string, extra map[string]any) *Widget {
	idx := any(nil)
	for i, o := range options {
		if o == value {
			idx = i
			break
		}
	}
	if idx == nil && len(options) > 0 {
		idx = 0
	}
	f := map[string]any{"description": description, "description_allow_html": false, "disabled": false,
		"_options_labels": append([]string{}, options...), "index": idx}
	for k, v := range extra {
		f[k] = v
	}
	w := control(model, view, style, f)
	w.text = func(w *Widget) string { // the selected label, as a value
		s := selection{w}
		return fmt.Sprintf("%s(description=%q, value=%q)", strings.TrimSuffix(model, "Model"), w.Get("description"), s.Value())
	}
	return w
}

func (s selection) options() []string {
	l, _ := s.Get("_options_labels").([]any)
	out := make([]string, len(l))
	for i, v := range l {
		out[i], _ = v.(string)
	}
	return out
}

// Index returns the selected index, -1 for none.
func (s selection) Index() int {
	v := s.Get("index")
	if v == nil {
		return -1
	}
	return integer(v)
}

// Value returns the selected option, "" for none.
func (s selection) Value() string {
	i, opts := s.Index(), s.options()
	if i < 0 || i >= len(opts) {
		return ""
	}
	return opts[i]
}

// SetValue selects an option by its label.
func (s selection) SetValue(v string) error {
	for i, o := range s.options() {
		if o == v {
			return s.Set("index", i)
		}
	}
	return fmt.Errorf("widget: %q is not one of the options %q", v, s.options())
}

// OnChange runs f after the selection changes.
func (s selection) OnChange(f func()) { s.Observe("index", f) }

// Dropdown is a DropdownModel.
type Dropdown struct{ selection }

// NewDropdown returns a drop-down list of options with value selected (the
// first option when value is not one of them).
func NewDropdown(description string, options []string, value string) *Dropdown {
	return &Dropdown{selection{newSelection("DropdownModel", "DropdownView", "DescriptionStyleModel", description, options, value, nil)}}
}

// ToggleButtons is a ToggleButtonsModel: one button per option.
type ToggleButtons struct{ selection }

// NewToggleButtons returns a row of toggle buttons, value selected.
func NewToggleButtons(description string, options []string, value string) *ToggleButtons {
	return &ToggleButtons{selection{newSelection("ToggleButtonsModel", "ToggleButtonsView", "ToggleButtonsStyleModel", description, options, value,
		map[string]any{"button_style": "", "icons": []any{}, "tooltips": []any{}})}}
}

// SelectionSlider is a SelectionSliderModel: a slider over named steps
// (its readout shows the selected option, e.g. "4.4 %"), for a knob whose
// values are not evenly spaced numbers.
type SelectionSlider struct{ selection }

// NewSelectionSlider returns a slider over options with value selected
// (the first option when value is not one of them).
func NewSelectionSlider(description string, options []string, value string) *SelectionSlider {
	f := sliderFields(description)
	delete(f, "description")
	return &SelectionSlider{selection{newSelection("SelectionSliderModel", "SelectionSliderView", "SliderStyleModel", description, options, value, f)}}
}

// Checkbox is a CheckboxModel.
type Checkbox struct{ *Widget }

// NewCheckbox returns a checkbox.
func NewCheckbox(description string, value bool) *Checkbox {
	return &Checkbox{control("CheckboxModel", "CheckboxView", "CheckboxStyleModel", map[string]any{
		"description": description, "description_allow_html": false, "disabled": false, "indent": true, "value": value})}
}

// Value reports whether the box is checked.
func (c *Checkbox) Value() bool { v, _ := c.Get("value").(bool); return v }

// SetValue checks or clears the box.
func (c *Checkbox) SetValue(v bool) error { return c.Set("value", v) }

// OnChange runs f after the value changes.
func (c *Checkbox) OnChange(f func()) { c.Observe("value", f) }

// Button is a ButtonModel; a click in the front end is a custom message
// {"event": "click"}.
type Button struct{ *Widget }

// NewButton returns a button labelled description.
func NewButton(description string) *Button {
	b := &Button{control("ButtonModel", "ButtonView", "ButtonStyleModel", map[string]any{
		"description": description, "disabled": false, "button_style": "", "icon": ""})}
	return b
}

// OnClick runs f at each click.
func (b *Button) OnClick(f func()) {
	if f == nil {
		return
	}
	b.OnCustom(func(c map[string]any) {
		if c["event"] == "click" {
			f()
		}
	})
}

// Click runs the click handlers as a click in the front end does.
func (b *Button) Click() {
	b.handle(comm.Msg{Data: map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}})
}

// Text is a TextModel: one line of text input.
type Text struct{ *Widget }

// NewText returns a text input.
func NewText(description, value string) *Text {
	return &Text{control("TextModel", "TextView", "TextStyleModel", map[string]any{
		"description": description, "description_allow_html": false, "disabled": false,
		"continuous_update": true, "placeholder": "\u200b", "value": value})}
}

// Value returns the text.
func (t *Text) Value() string { s, _ := t.Get("value").(string); return s }

// SetValue replaces the text.
func (t *Text) SetValue(v string) error { return t.Set("value", v) }

// OnChange runs f after the text changes.
func (t *Text) OnChange(f func()) { t.Observe("value", f) }

// Label is a LabelModel: plain text.
type Label struct{ *Widget }

// NewLabel returns a label.
func NewLabel(value string) *Label {
	return &Label{control("LabelModel", "LabelView", "LabelStyleModel", map[string]any{
		"description": "", "description_allow_html": false, "placeholder": "\u200b", "value": value})}
}

// Value returns the text.
func (l *Label) Value() string { s, _ := l.Get("value").(string); return s }

// SetValue replaces the text.
func (l *Label) SetValue(v string) error { return l.Set("value", v) }

// HTML is an HTMLModel: an HTML fragment.
type HTML struct{ *Widget }

// NewHTML returns an HTML widget.
func NewHTML(value string) *HTML {
	return &HTML{control("HTMLModel", "HTMLView", "HTMLStyleModel", map[string]any{
		"description": "", "description_allow_html": false, "placeholder": "\u200b", "value": value})}
}

// Value returns the HTML.
func (h *HTML) Value() string { s, _ := h.Get("value").(string); return s }

// SetValue replaces the HTML.
func (h *HTML) SetValue(v string) error { return h.Set("value", v) }

// Box is an HBoxModel or VBoxModel: children side by side or stacked.
type Box struct{ *Widget }

func newBox(model, view string, children []Model) *Box {
	return &Box{control(model, view, "", map[string]any{"box_style": "", "children": refs(children)})}
}

func refs(ms []Model) []any {
	out := make([]any, 0, len(ms))
	for _, m := range ms {
		if m != nil && m.Base() != nil {
			out = append(out, m.Base().Ref())
		}
	}
	return out
}

// HBox lays children out in a row.
func HBox(children ...Model) *Box { return newBox("HBoxModel", "HBoxView", children) }

// VBox stacks children.
func VBox(children ...Model) *Box { return newBox("VBoxModel", "VBoxView", children) }

// SetChildren replaces the box's children.
func (b *Box) SetChildren(children ...Model) error { return b.Set("children", refs(children)) }

// Tab is a TabModel: one page per child, with titles.
type Tab struct{ *Widget }

// NewTab returns tabs over children; titles name the pages (missing ones
// are empty).
func NewTab(titles []string, children ...Model) *Tab {
	ts := make([]any, len(children))
	for i := range ts {
		ts[i] = ""
		if i < len(titles) {
			ts[i] = titles[i]
		}
	}
	var sel any
	if len(children) > 0 {
		sel = 0
	}
	return &Tab{control("TabModel", "TabView", "", map[string]any{"box_style": "", "children": refs(children),
		"selected_index": sel, "titles": ts})}
}

// Selected returns the selected page, -1 for none.
func (t *Tab) Selected() int {
	v := t.Get("selected_index")
	if v == nil {
		return -1
	}
	return integer(v)
}

// Select shows page i.
func (t *Tab) Select(i int) error { return t.Set("selected_index", i) }

// OnChange runs f after the selected page changes.
func (t *Tab) OnChange(f func()) { t.Observe("selected_index", f) }

// Play is a PlayModel: a counter the front end advances every interval
// milliseconds while playing (link it to a slider with Link).
type Play struct{ *Widget }

// NewPlay returns a player counting from min to max by step every
// intervalMs.
func NewPlay(value, min, max, step, intervalMs int) *Play {
	if min > max {
		min, max = max, min
	}
	if step < 1 {
		step = 1
	}
	if intervalMs < 1 {
		intervalMs = 100
	}
	return &Play{control("PlayModel", "PlayView", "DescriptionStyleModel", map[string]any{
		"description": "", "description_allow_html": false, "disabled": false, "interval": intervalMs,
		"max": max, "min": min, "playing": false, "repeat": false, "show_repeat": true, "step": step,
		"value": clampInt(value, min, max)})}
}

// Value returns the counter.
func (p *Play) Value() int { return integer(p.Get("value")) }

// OnChange runs f after the counter changes.
func (p *Play) OnChange(f func()) { p.Observe("value", f) }

// Link returns a LinkModel: the front end keeps target's attribute equal to
// source's and the other way round (ipywidgets' jslink), with no round trip
// through the kernel.
func Link(source Model, sourceKey string, target Model, targetKey string) (*Widget, error) {
	if source == nil || target == nil || sourceKey == "" || targetKey == "" {
		return nil, fmt.Errorf("widget: Link needs two widgets and two attribute names")
	}
	for _, p := range []struct {
		m Model
		k string
	}{{source, sourceKey}, {target, targetKey}} {
		if !p.m.Base().Has(p.k) {
			return nil, fmt.Errorf("widget: %s has no attribute %q", p.m.Base().ModelName(), p.k)
		}
	}
	st := names(controlsModule, controlsVer, "LinkModel", "")
	st["source"] = []any{source.Base().Ref(), sourceKey}
	st["target"] = []any{target.Base().Ref(), targetKey}
	return New(st)
}
