package project

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteKeyPairForceKeepsOldKey (issue 14 item 7): with the public key's
// name taken by a folder, an overwriting WriteKeyPair fails and the old
// private key is still there, byte for byte.
func TestWriteKeyPairForceKeepsOldKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fk")
	pass := []byte("correct horse battery staple")
	if _, err := WriteKeyPair(path, pass, "carol@example.org", false); err != nil {
		t.Fatal(err)
	}
	oldPriv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	oldLine, err := os.ReadFile(path + AllowedSignersSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + PublicKeySuffix); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path+PublicKeySuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteKeyPair(path, pass, "carol@example.org", true); err == nil {
		t.Fatal("overwrite succeeded with a folder at the public key's name")
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, oldPriv) {
		t.Fatalf("old private key lost or changed (%v)", err)
	}
	if got, _ := os.ReadFile(path + AllowedSignersSuffix); !bytes.Equal(got, oldLine) {
		t.Error("allowed_signers line changed")
	}
	if _, err := LoadSigner(path, pass); err != nil {
		t.Errorf("old key no longer loads: %v", err)
	}
	assertNoTemp(t, filepath.Dir(path))
}

// TestWriteKeyFilesFaults: whichever step fails, writeKeyFiles either
// publishes the whole new pair or leaves the old private key unchanged and
// the public files as they were; after a crash the private key is complete
// (old or new). With and without hard links, overwriting or not.
func TestWriteKeyFilesFaults(t *testing.T) {
	for _, fs := range []faultOps{{}, {linkErr: syscall.EPERM}} {
		for _, overwrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/overwrite=%v", fmtBool("nolink", fs.linkErr != nil), overwrite), func(t *testing.T) {
				forEachFaultWith(t, fs, func(t *testing.T, dir string, f *faultOps) {
					base := filepath.Join(dir, "k")
					names := []string{base, base + PublicKeySuffix, base + AllowedSignersSuffix}
					old := map[string]string{}
					if overwrite {
						for _, n := range names {
							old[n] = "old " + filepath.Base(n)
							if err := os.WriteFile(n, []byte(old[n]), 0o600); err != nil {
								t.Fatal(err)
							}
						}
					}
					files := make([]pendingFile, len(names))
					for i, n := range names {
						files[i] = pendingFile{path: n, data: []byte("new " + filepath.Base(n)), mode: 0o600}
					}
					installFaults(t, f)
					err := writeKeyFiles(files, overwrite)
					ops = osOps{}
					if f.hit && err == nil {
						t.Errorf("fault at %s not reported", f.faulted())
					}
					read := func(n string) string {
						b, err := os.ReadFile(n)
						if errors.Is(err, os.ErrNotExist) {
							return ""
						}
						if err != nil {
							t.Fatal(err)
						}
						return string(b)
					}
					priv := read(base)
					switch {
					case err == nil:
						for i, n := range names {
							if got := read(n); got != string(files[i].data) {
								t.Errorf("%s = %q after success", filepath.Base(n), got)
							}
						}
					case f.crash:
						if priv != old[base] && priv != string(files[0].data) && !(priv == "" && fs.linkErr != nil && !overwrite) {
							t.Errorf("private key %q after a crash", priv)
						}
					default:
						if f.faulted() == "sync-dir" || f.faulted() == "remove" {
							return // published; the error reports the rest
						}
						for _, n := range names {
							if got := read(n); got != old[n] {
								t.Errorf("%s = %q after a failed write, want %q", filepath.Base(n), got, old[n])
							}
						}
						assertNoTemp(t, dir)
					}
				})
			})
		}
	}
}
