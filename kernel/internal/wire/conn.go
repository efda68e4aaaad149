package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Connection is a Jupyter connection file.
type Connection struct {
	Transport       string `json:"transport"` // "tcp" or "ipc"
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ParseConnection decodes and checks a connection file.
func ParseConnection(b []byte) (*Connection, error) {
	var c Connection
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("wire: connection file: %w", err)
	}
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	if c.Transport != "tcp" && c.Transport != "ipc" {
		return nil, fmt.Errorf("wire: connection file: transport %q (want tcp or ipc)", c.Transport)
	}
	if c.IP == "" {
		return nil, fmt.Errorf("wire: connection file: no ip")
	}
	for name, p := range map[string]int{"shell_port": c.ShellPort, "control_port": c.ControlPort,
		"iopub_port": c.IOPubPort, "stdin_port": c.StdinPort, "hb_port": c.HBPort} {
		if p <= 0 || p > 65535 {
			return nil, fmt.Errorf("wire: connection file: %s %d out of range", name, p)
		}
	}
	if c.Key != "" && c.SignatureScheme != "hmac-sha256" {
		return nil, fmt.Errorf("wire: connection file: %q: %w", c.SignatureScheme, ErrScheme)
	}
	return &c, nil
}

// Endpoint returns the ZeroMQ endpoint of port: tcp://IP:PORT or
// ipc://IP-PORT (the ipc naming of jupyter_client).
func (c *Connection) Endpoint(port int) string {
	if c.Transport == "ipc" {
		return "ipc://" + c.IP + "-" + strconv.Itoa(port)
	}
	return "tcp://" + c.IP + ":" + strconv.Itoa(port)
}
