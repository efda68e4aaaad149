// Package all registers every experiment of the articles with
// lab/experiment: import it for its side effect, as `veclab reproduce`,
// the kernel and the tests do, and the registry ([experiment.Select],
// [experiment.Lookup]) holds E01…E27.
package all

import (
	_ "github.com/veclab/veclab/lab/experiment/e01"
	_ "github.com/veclab/veclab/lab/experiment/e02"
	_ "github.com/veclab/veclab/lab/experiment/e03"
	_ "github.com/veclab/veclab/lab/experiment/e04"
	_ "github.com/veclab/veclab/lab/experiment/e05"
	_ "github.com/veclab/veclab/lab/experiment/e06"
	_ "github.com/veclab/veclab/lab/experiment/e07"
	_ "github.com/veclab/veclab/lab/experiment/e08"
	_ "github.com/veclab/veclab/lab/experiment/e09"
	_ "github.com/veclab/veclab/lab/experiment/e10"
	_ "github.com/veclab/veclab/lab/experiment/e11"
	_ "github.com/veclab/veclab/lab/experiment/e12"
	_ "github.com/veclab/veclab/lab/experiment/e13"
	_ "github.com/veclab/veclab/lab/experiment/e14"
	_ "github.com/veclab/veclab/lab/experiment/e15"
	_ "github.com/veclab/veclab/lab/experiment/e16"
	_ "github.com/veclab/veclab/lab/experiment/e17"
	_ "github.com/veclab/veclab/lab/experiment/e18"
	_ "github.com/veclab/veclab/lab/experiment/e19"
	_ "github.com/veclab/veclab/lab/experiment/e20"
	_ "github.com/veclab/veclab/lab/experiment/e21"
	_ "github.com/veclab/veclab/lab/experiment/e22"
	_ "github.com/veclab/veclab/lab/experiment/e23"
	_ "github.com/veclab/veclab/lab/experiment/e24"
	_ "github.com/veclab/veclab/lab/experiment/e25"
	_ "github.com/veclab/veclab/lab/experiment/e26"
	_ "github.com/veclab/veclab/lab/experiment/e27"
)
