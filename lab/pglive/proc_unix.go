//go:build unix

package pglive

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the server in a process group of its own. Jupyter
// interrupts a kernel by sending SIGINT to the kernel's process group
// (jupyter_client/provisioning/local_provisioner.py send_signal), and
// server.mjs stops on SIGINT: in the kernel's group, every interrupted
// cell would stop the embedded PostgreSQL server. The server still ends
// with this process: it stops when its stdin closes.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
