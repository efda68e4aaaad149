package kernel

import (
	"testing"
	"time"

	"github.com/veclab/veclab/kernel/eval"
)

// BenchmarkExecuteRoundTrip measures a trivial cell over real zmq4 sockets,
// from execute_request to the idle status, as a front end sees it.
// Hypothesis: the kernel's own overhead is a few hundred microseconds; the
// rest is zmq4 and the scheduler.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	for _, capture := range []eval.Capture{eval.CaptureGo, eval.CaptureFD} {
		b.Run(capture.String(), func(b *testing.B) {
			c, _ := startKernel(b, capture)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				id := c.send(c.shell, "execute_request", map[string]any{"code": "1+1", "silent": false})
				c.waitIdle(id, 10*time.Second)
				c.recv(c.shell)
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/cell")
		})
	}
}

// BenchmarkKernelInfoRoundTrip: request → reply on the shell socket alone.
func BenchmarkKernelInfoRoundTrip(b *testing.B) {
	c, _ := startKernel(b, eval.CaptureGo)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.recv(c.shell)
		c.waitIdle(id, 10*time.Second)
	}
}
