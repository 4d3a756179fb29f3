// Package synopsis is the signed .synopsis file: what a release publishes
// and an analyst evaluates. Who signs and whom to trust is project/keys.
//
// Contract:
//
//   - The format is specified byte for byte in synopsis_doc.go and
//     docs/synopsis-format.md (format 1, Format); Encode and Write produce
//     exactly it (golden files under testdata/synopsis pin the bytes), and
//     a File holds the noisy lattice values, the public parameters and the
//     declared domain, fill rules and bounds provenance — never raw data,
//     never noiseless values, no data-derived statistic other than n.
//   - Nothing unverified is returned. Read and Open check the OpenSSH
//     signature (namespace keys.Namespace, Ed25519 keys only) before they parse
//     the values, stream the file in bounded memory (MaxFileSize,
//     MaxMetadataSize) and refuse anything else with a *FormatError whose
//     class is ErrMalformed, ErrUnsupportedFormat, ErrTooLarge or
//     ErrBadSignature. A valid signature by a key the analyst does not
//     trust gives a Verified with Trusted false; RequireTrusted turns that
//     into ErrUntrusted.
//     Whom to trust is decided by the caller's *keys.AllowedSigners (from
//     keys.LoadTrust, the one trust policy).
//   - A file holds one kind of release (mechanism.name): the Bernstein
//     polynomial (NewFile) or a published peer — Hall et al.'s GP grid,
//     Wang et al.'s trigonometric moments, Chaudhuri & Vinterbo's
//     output-perturbed logistic weights (NewPeerFile, kinds.go). Each kind's
//     fields are checked for consistency with its theorem and learner on
//     read, and Verified.Function evaluates any kind with its public noise
//     standard deviation.
//   - Evaluation of a verified synopsis (EvalData, EvalDataBatch, ToUnit,
//     Class) maps data units to the unit cube and back, and refuses points
//     outside the declared bounds (*OutOfBoundsError).
//   - Text fields obey one rule, CheckText (valid UTF-8, a rune cap, no
//     control characters), also used by the workspace and the dataset's
//     declared classes.
//
// Package synopsis imports project/keys, project/fileio, learners,
// mechanism and mechanism/peers; nothing of ours above it.
package synopsis
