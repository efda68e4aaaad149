package store

import "testing"

// TestSimulatedReadsAreDeviceReads: with a latency model on, every read is
// charged to the simulated device, so DeviceReads counts it even when the
// page cache held the page.
func TestSimulatedReadsAreDeviceReads(t *testing.T) {
	for _, tc := range []struct {
		s    IOStats
		want int64
	}{
		{IOStats{Reads: 30, CachedReads: 30}, 0},
		{IOStats{Reads: 30, CachedReads: 30, SimReads: 30}, 30},
		{IOStats{Reads: 30, CachedReads: 10}, 20},
		{IOStats{Reads: 30, CachedReads: 10, SimReads: 30}, 30},
	} {
		if got := tc.s.DeviceReads(); got != tc.want {
			t.Errorf("%+v: DeviceReads %d, want %d", tc.s, got, tc.want)
		}
	}
}
