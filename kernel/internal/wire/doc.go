// Package wire is the Jupyter messaging codec (protocol 5.4): connection
// files, message frames ↔ [Message], and HMAC signing. It is pure — no
// sockets, no goroutines — and every decoding error is returned, never
// ignored, so it can be fuzzed.
//
// # Frames
//
// A message on the wire (ROUTER/DEALER/PUB sockets) is the multipart
//
//	[identity…] "<IDS|MSG>" signature header parent_header metadata content [buffer…]
//
// where signature is the lowercase hex HMAC of header|parent_header|
// metadata|content under the connection file's key and signature_scheme
// (only hmac-sha256 is accepted). An empty key disables signing: the
// signature frame is then empty. A message whose signature does not match
// is rejected with [ErrSignature] before any JSON is parsed.
package wire
