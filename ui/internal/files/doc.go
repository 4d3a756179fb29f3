// Package files holds the app's file forms: the Open dialog (a typed path
// or Browse…, ShowOpenPath; Fyne's file dialog, ShowOpenFile) and the
// "Save as" form (ShowSaveForm) that replaces Fyne's save dialog.
//
// # Contract
//
// ShowSaveForm never creates, truncates or writes a file: it checks the
// folder and name with the caller's SaveTargetFunc, asks before replacing
// an existing file and hands the path to the caller, who writes atomically
// (fileio.WriteAtomic). ProtectTarget adds the one rule of which files no
// output may be (release.CheckOutputPath: the dataset, the ledger and its
// lock, curator keys, allowed_signers files, by name or link); each window
// says which files it protects. The open dialogs only report a path; the
// caller reads the file.
package files
