// Package realsets runs the store experiments (E02, E10, E26) and the
// quantizer sweeps (E22–E24) on real embedding sets, one environment per
// set, for notebook 14: it composes the experiment packages and adds
// the tables that put the sets side by side.
package realsets
