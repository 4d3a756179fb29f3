package main

import (
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project"
)

// checkOutputs refuses, before any work, an output path that is (by name,
// symbolic link or hard link) a file no command may write: the default
// ledger and its lock, the default curator key and its companions, the
// default allowed_signers file (project.DefaultProtected) and the files in
// extra (the command's own dataset, ledger, key, inputs). The refusal is a
// *project.ProtectedPathError, which exits with exitUsage.
func checkOutputs(outs []string, extra ...[]project.ProtectedFile) error {
	prot := project.DefaultProtected()
	for _, e := range extra {
		prot = append(prot, e...)
	}
	for _, out := range outs {
		if err := project.CheckOutputPath(out, prot); err != nil {
			return err
		}
	}
	return nil
}

// keygenOutputs are the three files keygen writes for the private key out.
func keygenOutputs(out string) []string {
	return []string{out, out + project.PublicKeySuffix, out + project.AllowedSignersSuffix}
}

// checkKeygenOutputs refuses a keygen whose files would replace the
// ledger, an allowed_signers file (the default one or --allowed-signers) or
// a file of another key. Regenerating a key in place (--force) is keygen's
// job: when out is the default key, the default key's own files may be
// replaced, each by its counterpart.
func checkKeygenOutputs(out, allowed string) error {
	var prot []project.ProtectedFile
	if p, err := project.DefaultLedgerPath(); err == nil {
		prot = append(prot, project.LedgerProtected(p)...)
	}
	if p, err := project.DefaultAllowedSignersPath(); err == nil {
		prot = append(prot, project.AllowedSignersProtected(p)...)
	}
	prot = append(prot, project.AllowedSignersProtected(allowed)...)
	outs := keygenOutputs(out)
	if p, err := project.DefaultKeyPath(); err == nil {
		own := project.KeyProtected(p)
		for j, o := range outs {
			for i, f := range own {
				if i == j && project.SamePath(o, f.Path) {
					continue // the default key's file, replaced by its counterpart
				}
				if err := project.CheckOutputPath(o, []project.ProtectedFile{f}); err != nil {
					return err
				}
			}
		}
	}
	for _, o := range outs {
		if err := project.CheckOutputPath(o, prot); err != nil {
			return err
		}
	}
	return nil
}

// figureOutputs are the files figure 1 and 2 write into dir.
func figureOutputs(dir string) []string {
	var out []string
	for _, name := range []string{figure1CSVFile, figure1PNGFile, figure2CSVFile, figure2PNGFile} {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// demoOutputs are the files demo-data writes into dir.
func demoOutputs(dir string) []string {
	return []string{filepath.Join(dir, project.DemoKDE1DFile), filepath.Join(dir, project.DemoTwoClass2DFile)}
}

// evalProtected are eval's inputs, which its --out must not replace.
func evalProtected(synopsis, points, allowed string) []project.ProtectedFile {
	prot := project.AllowedSignersProtected(allowed)
	prot = append(prot, project.ProtectedFile{Path: synopsis, Role: "the synopsis being evaluated"})
	if points != "" {
		prot = append(prot, project.ProtectedFile{Path: points, Role: "the query points file"})
	}
	return prot
}
