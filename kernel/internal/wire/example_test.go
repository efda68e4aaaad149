package wire_test

import (
	"fmt"

	"github.com/veclab/veclab/kernel/internal/wire"
)

// Frames are signed on Encode and verified on Decode, before any JSON is
// read; a frame signed with another key is rejected.
func Example() {
	s, _ := wire.NewSigner("hmac-sha256", "connection-file-key")
	m, _ := wire.New("kernel_info_request", "client-session", nil, nil)
	frames, _ := wire.Encode(m, s)
	got, err := wire.Decode(frames, s)
	fmt.Println(got.Header.MsgType, err)

	other, _ := wire.NewSigner("hmac-sha256", "another-key")
	_, err = wire.Decode(frames, other)
	fmt.Println(err)
	// Output:
	// kernel_info_request <nil>
	// wire: bad message signature
}
