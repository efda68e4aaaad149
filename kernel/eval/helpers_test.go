package eval

import (
	"os"

	"github.com/veclab/veclab/kernel/display"
)

func displayRender(v any) display.Bundle { return display.Render(v) }

func readingStdinSupported() bool {
	_, err := os.Stat("/proc/self/task")
	return err == nil
}
