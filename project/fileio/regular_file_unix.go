//go:build unix

package fileio

import "syscall"

// openNonBlock makes OpenRegular's open return at once on a FIFO.
const openNonBlock = syscall.O_NONBLOCK
