// conns_unix.go: whether a connection's client has sent bytes the server has not read yet, asked of the kernel without reading them.

//go:build unix

package watch

import (
	"net"
	"syscall"
)

// pending reports whether bytes wait in c's receive buffer: a peek of one
// byte that neither blocks nor consumes it.
func pending(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	got := false
	raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		got = err == nil && n > 0
	})
	return got
}
