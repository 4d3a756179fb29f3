package synopsis

// Synopsis file format, version 1 (Format).
//
// A .synopsis file is a payload followed by an OpenSSH signature block.
// All text is UTF-8 without BOM; every line ends with one LF (0x0A), never
// CR LF.
//
//	payload   = magic metadata value*
//	magic     = "bernstein-synopsis format 1" LF
//	metadata  = canonical JSON object, ending with the line "}" LF
//	value     = canonical decimal LF       (exactly lattice.count lines)
//	signature = "-----BEGIN SSH SIGNATURE-----" LF
//	            base64, 64 characters per line (last line shorter) LF
//	            "-----END SSH SIGNATURE-----" LF   (end of file)
//
// Metadata: the JSON encoding of File (without Values) followed by
// "lattice": {"count": ∏(k_j+1), "order": LatticeOrder}, written by
// encoding/json with two-space indentation and HTML escaping off: keys in
// struct order, every key present (null for absent values) except the
// optional "fill" rules (FillRule: omitted when absent, as in files written
// before them; inside a rule, "value" or "class" is omitted), shortest
// round-trip numbers, RFC 3339 UTC time. Readers decode with unknown fields
// disallowed, re-encode and require identical bytes, so there is exactly
// one byte sequence per content. The top-level object ends at the first
// line "}" (nested lines are indented); at most MaxMetadataSize.
//
// Values: the noisy lattice values F̃_D(ν/k) of Algorithm 1 (Aldà &
// Rubinstein 2017) in LatticeOrder, one per line as
// strconv.FormatFloat(v, 'g', -1, 64) (the shortest decimal that reads
// back to the same float64; e.g. "0.25", "2.25e-07", "1e+21"); NaN and ±Inf
// are invalid. Value i = Σ_j ν_j·∏_{m>j}(k_m+1) belongs to lattice point
// (ν_1/k_1, …, ν_ℓ/k_ℓ).
//
// Signature: SSHSIG (OpenSSH PROTOCOL.sshsig) over exactly the payload
// bytes — from the file's first byte through the LF before the BEGIN line —
// with an Ed25519 key, namespace Namespace and hash sha512, armored
// as by sshsig.Armor (PEM, 64-column base64). The BEGIN line cannot occur
// in a payload (JSON strings escape LF; value lines are numbers), so readers
// split at its first occurrence. Readers require the block to equal the
// canonical armor of its decoded signature and to end the file: no bit of
// a valid file can change without rejection (TestSynopsisBitFlips).
//
// Verification with OpenSSH alone (docs/synopsis-format.md, run by
// TestSynopsisVerifiesWithSSHKeygen):
//
//	sed '/^-----BEGIN SSH SIGNATURE-----$/,$d' f.synopsis > f.payload
//	sed -n '/^-----BEGIN SSH SIGNATURE-----$/,$p' f.synopsis > f.sig
//	ssh-keygen -Y verify -f allowed_signers -I alice@example.org \
//	    -n bernstein-synopsis -s f.sig < f.payload
//
// Reading order and caps: see Read. Field rules: see
// (*File).Validate. Data units: see (*File).OutputAffine.
const (
	// Format is the only format version this build writes and reads.
	Format = 1
	// Magic starts the first line of every synopsis file.
	Magic = "bernstein-synopsis"
	// Ext is the file-name extension of synopsis files.
	Ext = ".synopsis"
	// MaxFileSize caps the size of a synopsis file (512 MiB).
	MaxFileSize = 512 << 20
	// MaxMetadataSize caps the JSON metadata block (1 MiB).
	MaxMetadataSize = 1 << 20
	// LatticeOrder is the only ordering of the lattice values: row-major,
	// the last axis varying fastest. Value number
	// i = Σ_j i_j·∏_{m>j}(k_m+1) is the noisy F_D(i_1/k_1, …, i_ℓ/k_ℓ).
	LatticeOrder = "row-major, last axis fastest"
	// MechanismBernstein is MechanismInfo.Name: Algorithm 1 of Aldà &
	// Rubinstein (2017) with the iterated Bernstein operator.
	MechanismBernstein = "bernstein"
	// NeighbouringReplaceOne is the neighbouring relation of every release:
	// D ~ D′ when they have the same size n and differ in one record.
	NeighbouringReplaceOne = "replace-one"
)
