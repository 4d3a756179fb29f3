// Package fileio is how the project packages (and the CLI and the GUI, for
// figures and plots) read and write files by path.
//
// Contract:
//
//   - Writes are crash-safe. WriteAtomic and WriteAtomicFunc write a
//     temporary file in the target's directory, fsync it, publish it by
//     link(2) (no overwrite: an existing file is never replaced, *ExistsError
//     / ErrExists) or rename(2) (overwrite), and fsync the directory, so a
//     crash leaves the old file or the new one, never a torn file. On file
//     systems without hard links (FAT, exFAT, SMB) no-clobber writes fall
//     back to an exclusive create and a rename (atomic_nolink.go).
//     WriteGroup publishes several files (a key pair) so that the first one
//     (the private key) is replaced only once all new files are complete.
//     Stale temporary files of earlier killed writes are cleared
//     (atomic_stale.go). Every step goes through the project/internal/fsops
//     seam, which tests replace to fail or "crash" at every step.
//   - A write never replaces something that is not a regular file
//     (CheckReplaceable): a folder, a device or a symbolic link to one is
//     refused before anything is written (ErrNotRegular).
//   - Reading is bounded and never blocks: OpenRegular refuses directories,
//     FIFOs and devices instead of blocking on them (ErrNotRegular), and
//     ReadRegular reads at most a given number of bytes.
//
// Package fileio imports nothing of ours but project/internal/fsops; it
// knows no file format (the extensions whose temporary files it clears are
// pinned to the formats' constants by TestOwnedTempExtensions in project).
package fileio
