// Package widgets holds the Fyne building blocks both windows of the app
// (ui/curator, ui/viewer) and the shared dialogs use.
//
// # Contract
//
//   - Dialog (ShowDialog, ShowMessage, ShowError, ShowConfirm): a modal
//     dialog whose buttons callers and headless tests hold directly; Enter
//     runs the default action (the last button), Escape the first, with
//     the focus anywhere in it. KeyEntry, KeyCheck and KeySelect are the entries,
//     check boxes and drop-downs that keep those keys working inside a
//     Dialog.
//   - ShowWindowDialog: a Dialog sized to the window less DialogMargin,
//     which follows the window when it grows.
//   - DialogBody: a dialog body that scrolls when the window is short;
//     VScroll: a vertical scroll whose content stays clear of its bar.
//   - TabEntry: a multi-line entry whose Tab moves the focus.
//   - PathEntry: a file path entry that wraps a long path over the rows it
//     needs instead of scrolling it sideways, and takes no line break.
//   - AlignTableHeader: a table's column names start where their values
//     start.
//   - The theme: ApplyTheme and PlotTheme for the View menu's choices
//     (ThemeSystem, ThemeLight, ThemeDark); WindowSize, the windows' size
//     when they open.
//   - Do and Mu: every background goroutine touches widgets only through
//     Do (fyne.Do, serialised by Mu so that Fyne's headless test driver
//     never runs two callbacks at once; tests take Mu around their own
//     widget actions).
//
// It holds no application logic and imports nothing of ours but plotting
// (the plot colours).
package widgets
