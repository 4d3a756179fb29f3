// Package uitest holds helpers for the headless tests of ui/curator and
// ui/viewer (tests only; no production code imports it): reading what a
// widget shows as Fyne's test driver renders it.
package uitest
