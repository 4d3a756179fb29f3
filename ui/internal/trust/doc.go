// Package trust is the analyst's list of trusted curator keys in the app:
// Store (an OpenSSH allowed_signers file, read afresh and written
// atomically on every change) and Manager, the window that lists, adds and
// removes keys.
//
// # Contract
//
// It parses no keys and decides no trust itself: pasted key text goes
// through keys.ParseKeyText, the file through keys.AllowedSigners, and
// Load is keys.LoadTrust (a missing file trusts nobody; no path, no
// file). Used by the viewer (trust prompts, the manager) and the curator
// (trusting its own new key when the curator agrees).
package trust
