// Package plotting draws the curator's and the analyst's plots, and the CLI's
// figures, with gonum/plot into images that a Fyne canvas.Image or
// canvas.Raster shows (or that are written as PNG files).
//
// It knows nothing about Fyne, learners or the mechanism: callers hand it
// plain numbers (already in the units they want on the axes) and get an
// image.Image back. Every Render function is safe to call from any goroutine
// (each call builds its own plot and canvas) and never touches widgets, so the
// UI renders off the UI goroutine and only swaps the finished image in via
// fyne.Do.
//
// Contract:
//   - Inputs are validated once: lengths must match, sizes must be positive,
//     log-scale values must be positive (non-positive and NaN values on a log
//     axis are skipped, not drawn, so a curve with a failed point still draws
//     the rest). Bad shapes return an error naming the field; nothing panics
//     on user data.
//   - Size is in device pixels; Scale is the display's pixel density (Fyne's
//     canvas scale), so text stays legible on HiDPI screens.
//   - Theme selects colours legible on both light and dark backgrounds.
//
// The returned image is the canvas's own image (vgimg copies any image passed
// in with UseImage, so we never return the caller's buffer).
package plotting
