//go:build !linux

package eval

import (
	"errors"
	"os"
)

type fdCapture struct{}

func startFDCapture(*sink) (*fdCapture, error) {
	return nil, errors.New("eval: CaptureFD needs Linux")
}
func (*fdCapture) flush() bool                        { return true }
func (*fdCapture) watchStdin(Output, <-chan struct{}) {}
func (*fdCapture) endCell()                           {}
func (*fdCapture) close()                             {}
func (*fdCapture) logFile() *os.File                  { return os.Stderr }
