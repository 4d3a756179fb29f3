package cli

import (
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// checkOutputs refuses, before any work, an output path that is (by name,
// symbolic link or hard link) a file no command may write: the default
// ledger and its lock, the default curator key and its companions, the
// default allowed_signers file (release.DefaultProtected) and the files in
// extra (the command's own dataset, ledger, key, inputs). The refusal is a
// *release.ProtectedPathError, which exits with exitUsage.
func checkOutputs(outs []string, extra ...[]release.ProtectedFile) error {
	prot := release.DefaultProtected()
	for _, e := range extra {
		prot = append(prot, e...)
	}
	for _, out := range outs {
		if err := release.CheckOutputPath(out, prot); err != nil {
			return err
		}
	}
	return nil
}

// checkLedgerPath refuses a ledger (the ledger file or its lock, both
// written by a release) that is one of the files in inputs (the dataset,
// the key, the passphrase file) or an allowed_signers file, by name,
// symbolic link or hard link: appending to them would damage them.
func checkLedgerPath(ledger string, inputs ...[]release.ProtectedFile) error {
	var prot []release.ProtectedFile
	for _, in := range inputs {
		prot = append(prot, in...)
	}
	if p, err := keys.DefaultKeyPath(); err == nil {
		prot = append(prot, release.KeyProtected(p)...)
	}
	if p, err := keys.DefaultAllowedSignersPath(); err == nil {
		prot = append(prot, release.AllowedSignersProtected(p)...)
	}
	for _, p := range []string{ledger, ledger + ".lock"} {
		if err := release.CheckOutputPath(p, prot); err != nil {
			return err
		}
	}
	return nil
}

// refuseDashOut refuses `--out -` for a command that cannot stream its
// output (release, keygen, figure, demo-data): "-" is standard output by
// convention, and quietly creating a file or folder named "-" would
// surprise. A file really named - can be given as ./-. eval takes `--out -`
// as standard output instead.
func refuseDashOut(out, what string) error {
	if out == "-" {
		return usagef("--out -: this command cannot write %s to standard output; give a path (./- for a name that is a dash)", what)
	}
	return nil
}

// keygenOutputs are the three files keygen writes for the private key out.
func keygenOutputs(out string) []string {
	return []string{out, out + keys.PublicKeySuffix, out + keys.AllowedSignersSuffix}
}

// checkKeygenOutputs refuses a keygen whose files would replace the
// ledger, an allowed_signers file (the default one or --allowed-signers),
// the passphrase file passFile or a file of another key. Regenerating a key in place (--force) is keygen's
// job: when out is the default key, the default key's own files may be
// replaced, each by its counterpart.
func checkKeygenOutputs(out, allowed, passFile string) error {
	var prot []release.ProtectedFile
	if p, err := ledger.DefaultPath(); err == nil {
		prot = append(prot, release.LedgerProtected(p)...)
	}
	if p, err := keys.DefaultAllowedSignersPath(); err == nil {
		prot = append(prot, release.AllowedSignersProtected(p)...)
	}
	prot = append(prot, release.AllowedSignersProtected(allowed)...)
	prot = append(prot, release.PassphraseProtected(passFile)...)
	outs := keygenOutputs(out)
	if p, err := keys.DefaultKeyPath(); err == nil {
		own := release.KeyProtected(p)
		for j, o := range outs {
			for i, f := range own {
				if i == j && release.SamePath(o, f.Path) {
					continue // the default key's file, replaced by its counterpart
				}
				if err := release.CheckOutputPath(o, []release.ProtectedFile{f}); err != nil {
					return err
				}
			}
		}
	}
	for _, o := range outs {
		if err := release.CheckOutputPath(o, prot); err != nil {
			return err
		}
	}
	return nil
}

// demoOutputs are the files demo-data writes into dir.
func demoOutputs(dir string) []string {
	return []string{filepath.Join(dir, dataset.DemoKDE1DFile), filepath.Join(dir, dataset.DemoTwoClass2DFile)}
}

// evalProtected are eval's inputs, which its --out must not replace.
func evalProtected(synopsis, points, allowed string) []release.ProtectedFile {
	prot := release.AllowedSignersProtected(allowed)
	prot = append(prot, release.ProtectedFile{Path: synopsis, Role: "the synopsis being evaluated"})
	if points != "" {
		prot = append(prot, release.ProtectedFile{Path: points, Role: "the query points file"})
	}
	return prot
}
