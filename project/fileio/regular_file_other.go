//go:build !unix

package fileio

// openNonBlock is 0 where there is no O_NONBLOCK; OpenRegular relies on its
// check before opening there.
const openNonBlock = 0
