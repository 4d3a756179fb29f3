package release

// releaseProtected lists the files a release's output must never be: the
// dataset or aggregate table it was prepared from, the ledger it records the spend in (and its
// lock), opt.Protected (the caller's signing key) and DefaultProtected.
func releaseProtected(p *Prepared, opt Options) []ProtectedFile {
	var out []ProtectedFile
	if ds := p.Request.Dataset; ds != nil {
		out = append(out, DatasetProtected(ds.Path)...)
	}
	if a := p.Request.Aggregates; a != nil {
		out = append(out, DatasetProtected(a.Path)...)
	}
	if opt.Ledger != nil {
		out = append(out, LedgerProtected(opt.Ledger.Path())...)
	}
	out = append(out, opt.Protected...)
	return append(out, DefaultProtected()...)
}
