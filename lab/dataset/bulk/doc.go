// Package bulk is the bulk-request codec of E19 (base64 vectors in bulk
// ingest): it encodes rows of a matrix as the bodies a client sends to a
// store's bulk API and decodes them the way the server's parser does.
//
// The formats ([Format]) are Elasticsearch's NDJSON with the vector as a
// float array (the baseline) or as base64 of its little-endian float32
// bytes (Elasticsearch 9.x), and the same pairs in msgpack. A JSON body is
// read by one of two parsers ([Parser]): Go's encoding/json by reflection,
// or token by token in place (valyala/fastjson), the way Elasticsearch's
// DocumentParser walks Jackson's tokens. Every format carries each float32
// bit for bit ([Check] verifies it), so an ingest measured through the
// codec indexes the same vectors as one that never encoded them.
//
// A body the decoder cannot read is an error wrapping engine.ErrCorrupt
// that names the document (its index in the body); a call the codec
// cannot honour (an unknown format, rows outside the matrix) wraps
// engine.ErrInvalidArgument. FuzzDecode keeps the decoder from panicking
// on any body. It lives on the data side (lab/dataset) because it turns
// a data set's rows into requests and back; the experiment (lab/experiment/e19)
// only times it.
package bulk
