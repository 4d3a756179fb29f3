package viewer

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/trust"
)

// viewerVerifyState is the verification outcome of an opened synopsis file.
type viewerVerifyState int

const (
	// viewerInvalid: the file did not verify or could not be read. Nothing
	// of its content is shown or evaluated, only the reason.
	viewerInvalid viewerVerifyState = iota
	// viewerUntrusted: the signature is valid, but the signing key is not in
	// the analyst's trusted keys. The content is shown under a warning with
	// the key's fingerprint and an offer to trust it.
	viewerUntrusted
	// viewerTrusted: the signature is valid and the key is trusted.
	viewerTrusted
)

func (s viewerVerifyState) String() string {
	switch s {
	case viewerTrusted:
		return "trusted"
	case viewerUntrusted:
		return "untrusted"
	}
	return "invalid"
}

// viewerDoc is an opened synopsis file as the viewer sees it.
type viewerDoc struct {
	Path  string
	State viewerVerifyState
	// Headline and Detail explain the state in words for the banner; for
	// an invalid file Detail is the reader's error (what and where).
	Headline, Detail string
	// Err is the reader's error for an invalid file.
	Err error
	// TrustWarning reports a problem with the trusted-keys file (it could
	// not be read, so no key counts as trusted); "" if none.
	TrustWarning string
	// Own reports that the signing key is this machine's curator key
	// (viewerConfig.ownKeyPath); OwnPrincipal is the name in that key's
	// allowed_signers line, if readable.
	Own          bool
	OwnPrincipal string
	// Verified and Release are nil unless the signature verified.
	Verified *synopsis.Verified
	Release  *viewerRelease
}

// viewerLoad reads and verifies the synopsis file at path against the
// trusted keys in the allowed_signers file at trustPath (a missing file
// means no key is trusted yet). It never writes anything. Only when the
// signature verified does the result carry content (Verified, Release).
func viewerLoad(path, trustPath string) *viewerDoc { return viewerLoadOwn(path, trustPath, "") }

// viewerLoadOwn is viewerLoad that also recognises this machine's curator
// key, the key at ownKeyPath (its public half, ownKeyPath + ".pub"; ""
// for none): a file it signed is said to be signed by this machine's
// curator key (issue 18 item 12). Whether it is trusted is still decided
// by the allowed_signers file alone.
func viewerLoadOwn(path, trustPath, ownKeyPath string) *viewerDoc {
	d := &viewerDoc{Path: path}
	trusted, err := trust.Load(trustPath)
	if err != nil {
		d.TrustWarning = fmt.Sprintf("Your trusted-keys file could not be read, so no key counts as trusted: %v", err)
		trusted = nil
	}
	v, err := synopsis.Open(path, trusted)
	if err != nil {
		d.State, d.Err = viewerInvalid, err
		d.Headline = viewerInvalidHeadline(err)
		d.Detail = err.Error()
		return d
	}
	d.Verified = v
	d.Release = viewerReleaseOf(v)
	d.Own, d.OwnPrincipal = viewerOwnKey(ownKeyPath, v.Fingerprint)
	switch {
	case v.Trusted && d.Own:
		d.State = viewerTrusted
		d.Headline = fmt.Sprintf("Signature valid — signed by this machine's curator key (%s), a trusted key.", v.Principal)
		d.Detail = "Key " + v.Fingerprint + ". " + viewerSentence(v.TrustNote)
	case v.Trusted:
		d.State = viewerTrusted
		d.Headline = fmt.Sprintf("Signature valid — signed by %s, a trusted key.", v.Principal)
		d.Detail = "Key " + v.Fingerprint + ". " + viewerSentence(v.TrustNote)
	case d.Own:
		d.State = viewerUntrusted
		d.Headline = "Signature valid — signed by this machine's curator key, which is not in your trusted keys yet."
		d.Detail = "Key " + v.Fingerprint + ". This is the key the curator app on this computer signs releases with. Trust it to see your own releases as trusted."
	default:
		d.State = viewerUntrusted
		d.Headline = "Signature valid, but the signing key is NOT in your trusted keys."
		d.Detail = "Key " + v.Fingerprint + ". " + viewerSentence(v.TrustNote) +
			" The file is intact since it was signed, but anyone can make a key: compare this fingerprint with the one the curator gave you (by phone, in person, on an official page) before trusting it."
	}
	return d
}

// viewerOwnKey reports whether fingerprint is that of this machine's
// curator key at keyPath (its public key file, keyPath + ".pub"), and the
// principal of its allowed_signers line (keyPath + ".allowed_signers"),
// if any. Missing or unreadable files mean no.
func viewerOwnKey(keyPath, fingerprint string) (own bool, principal string) {
	if keyPath == "" {
		return false, ""
	}
	pub, err := fileio.ReadRegular(keyPath+keys.PublicKeySuffix, keys.MaxAllowedSignersSize)
	if err != nil {
		return false, ""
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(pub)
	if err != nil || ssh.FingerprintSHA256(key) != fingerprint {
		return false, ""
	}
	if line, err := fileio.ReadRegular(keyPath+keys.AllowedSignersSuffix, keys.MaxAllowedSignersSize); err == nil {
		if _, p, err := keys.ParseKeyText(string(line)); err == nil {
			principal = p
		}
	}
	return true, principal
}

// viewerInvalidHeadline explains in one viewerSentence why a file cannot be used.
func viewerInvalidHeadline(err error) string {
	switch {
	case errors.Is(err, synopsis.ErrBadSignature):
		return "Invalid: the signature does not verify. The file was changed after it was signed, or it was never signed. Do not use it."
	case errors.Is(err, synopsis.ErrUnsupportedFormat):
		return "Invalid: this file uses a synopsis format this version of Bernstein Release cannot read."
	case errors.Is(err, synopsis.ErrTooLarge):
		return "Invalid: the file exceeds the size limits of a synopsis."
	case errors.Is(err, synopsis.ErrMalformed):
		return "Invalid: this is not a well-formed synopsis file."
	case errors.Is(err, fs.ErrNotExist):
		return "The file does not exist."
	}
	return "The file could not be read."
}

// viewerSentence capitalises s and ends it with a full stop.
func viewerSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// viewerReleaseOf builds the viewer's description of a verified
// release. The output unit is the label's unit for regression, 1/(∏ feature
// units) for a density when every feature has a unit, else empty.
func viewerReleaseOf(v *synopsis.Verified) *viewerRelease {
	f := v.File
	r := &viewerRelease{
		OutputName:  f.Output.Name,
		OutputKind:  learners.OutputKind(f.Output.Kind),
		ClassLabels: slices.Clone(f.Output.ClassLabels),
		eval:        v,
		Range:       f.Output.Range,
	}
	units := make([]string, 0, len(f.Domain.Features))
	for _, b := range f.Domain.Features {
		r.Features = append(r.Features, viewerFeature{Name: b.Name, Unit: b.Unit, Lo: b.Lo, Hi: b.Hi, FromData: b.FromData})
		if b.Unit != "" {
			units = append(units, b.Unit)
		}
	}
	switch r.OutputKind {
	case learners.OutputRegression:
		if l := f.Domain.Label; l != nil {
			// The value is the label's: name the axis and the field after
			// the label column, not the output kind (issue 18 item 11).
			if strings.TrimSpace(l.Name) != "" {
				r.OutputName = l.Name
			}
			r.OutputUnit = l.Unit
		}
	case learners.OutputDensity:
		if len(units) == len(f.Domain.Features) {
			if len(units) == 1 {
				r.OutputUnit = "1/" + units[0]
			} else {
				r.OutputUnit = "1/(" + strings.Join(units, "·") + ")"
			}
		}
	}
	return r
}

// viewerDetailRow is one line of the metadata panel.
type viewerDetailRow struct {
	Label, Value string
	// Warn marks a value the analyst must notice (bounds from data).
	Warn bool
}

// viewerDetailRows returns the metadata panel of a verified synopsis: title,
// note, learner and parameters, ε, δ, noise, k, h, n, sensitivity, output,
// created, app version and whether any bound came from the data. Feature
// bounds are listed separately (viewerFeatureRows).
func viewerDetailRows(v *synopsis.Verified) []viewerDetailRow {
	f := v.File
	m := f.Mechanism
	learnerTitle := f.Learner.Kind
	var spec *learners.Spec
	if l, err := learners.Lookup(learners.Kind(f.Learner.Kind)); err == nil {
		s := l.Spec()
		spec = &s
		learnerTitle = fmt.Sprintf("%s (%s)", s.Title, f.Learner.Kind)
	}
	rows := []viewerDetailRow{
		{Label: "Title", Value: viewerOrDash(f.Title)},
		{Label: "Note", Value: viewerOrDash(f.Note)},
		{Label: "Learner", Value: learnerTitle},
		{Label: "Parameters", Value: viewerFmtParams(f.Learner.Params, spec)},
		{Label: "Privacy ε", Value: viewerNum(m.Epsilon)},
		{Label: "δ", Value: viewerFmtDelta(m)},
		{Label: "For one person", Value: privacywords.OnePerson(m.Epsilon, m.Delta, mechanism.NoiseKind(m.Noise))},
	}
	rows = append(rows, viewerMechanismRows(f)...)
	rows = append(rows, []viewerDetailRow{
		{Label: "Records n", Value: fmt.Sprint(f.Learner.N)},
		{Label: "Sensitivity", Value: viewerSensitivity(f)},
		{Label: "Output", Value: viewerFmtOutput(f)},
		{Label: "Units shown", Value: viewerFmtUnits(v)},
		{Label: "Created", Value: f.Created.UTC().Format(time.RFC3339)},
		{Label: "App version", Value: viewerOrDash(f.AppVersion)},
	}...)
	if f.Output.ClassLabelsFromData {
		rows = append(rows, viewerDetailRow{Label: "Classes from data", Warn: true,
			Value: "YES — the curator declared the class labels after seeing the values in the label column. That these values occur in the data is not covered by the privacy guarantee."})
	}
	if f.Domain.BoundsFromData {
		rows = append(rows, viewerDetailRow{Label: "Bounds from data", Warn: true,
			Value: "YES — the curator took some public bounds from the data itself (marked below). Those bounds are not covered by the privacy guarantee."})
	} else {
		rows = append(rows, viewerDetailRow{Label: "Bounds from data", Value: "no — all bounds were set without looking at the data"})
		if f.Domain.AnyPrivateEnd() {
			rows[len(rows)-1].Value = "no — some bounds were estimated from the data under differential privacy (marked below); their ε was charged to the dataset's budget"
		}
	}
	return rows
}

// viewerFeatureRows returns one row per feature (and the label bound for
// regression): name, unit, public bounds and whether they came from data.
func viewerFeatureRows(f *synopsis.File) [][]string {
	rows := [][]string{{"Feature", "Unit", "Lower bound", "Upper bound", "From data"}}
	add := func(prefix string, b synopsis.Bound) {
		from := "no"
		if b.FromData {
			from = "YES"
		}
		if lo, hi := b.Ends(); lo != hi || lo == synopsis.EndPrivate {
			from += " (" + b.DescribeEnds() + ")"
		}
		rows = append(rows, []string{prefix + b.Name, viewerOrDash(b.Unit), viewerNum(b.Lo), viewerNum(b.Hi), from})
	}
	for _, b := range f.Domain.Features {
		add("", b)
	}
	if f.Domain.Label != nil {
		add("label: ", *f.Domain.Label)
	}
	return rows
}

func viewerOrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

func viewerFmtDelta(m synopsis.MechanismInfo) string {
	if m.Delta == 0 {
		return "0 — pure ε-differential privacy"
	}
	return viewerNum(m.Delta) + " — (ε, δ)-differential privacy"
}

func viewerFmtNoise(m synopsis.MechanismInfo) string {
	switch mechanism.NoiseKind(m.Noise) {
	case mechanism.NoiseLaplace:
		return "Laplace, scale λ = " + viewerNum(m.Scale) + " per lattice value (Algorithm 1)"
	case mechanism.NoiseLaplaceApprox:
		return "Laplace, scale λ_δ = " + viewerNum(m.Scale) + " per lattice value (Section 4.2)"
	case mechanism.NoiseGaussian:
		return "Gaussian, σ = " + viewerNum(m.Scale) + " per lattice value"
	}
	return m.Noise + ", scale " + viewerNum(m.Scale)
}

func viewerFmtK(k []int) string {
	// k per axis, then the count as the product of the k+1 points per
	// axis, so that the numbers multiply as shown. The row's label is
	// "Cover size k", so the value does not repeat "k =".
	parts := make([]string, len(k))
	points := make([]string, len(k))
	size := 1
	for i, kj := range k {
		parts[i] = fmt.Sprint(kj)
		points[i] = fmt.Sprint(kj + 1)
		size *= kj + 1
	}
	if len(k) == 1 {
		return fmt.Sprintf("%s (%d lattice values)", parts[0], size)
	}
	return fmt.Sprintf("%s (%s = %d lattice values)", strings.Join(parts, " × "), strings.Join(points, " × "), size)
}

func viewerFmtParams(params map[string][]float64, spec *learners.Spec) string {
	if len(params) == 0 {
		return "—"
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		label := n
		vals := make([]string, len(params[n]))
		for i, x := range params[n] {
			vals[i] = viewerNum(x)
		}
		if spec != nil {
			for _, p := range spec.Params {
				if p.Name != n {
					continue
				}
				label = p.Label
				if i := slices.Index(p.Choices, params[n][0]); i >= 0 && i < len(p.ChoiceLabels) && len(params[n]) == 1 {
					vals[0] += " (" + p.ChoiceLabels[i] + ")"
				}
			}
		}
		parts = append(parts, label+" = "+strings.Join(vals, ", "))
	}
	return strings.Join(parts, "; ")
}

// viewerFmtUnits says in which units the viewer shows values: queries in
// the features' data units, outputs mapped back by kind
// ((*synopsis.File).OutputAffine).
func viewerFmtUnits(v *synopsis.Verified) string {
	r := viewerReleaseOf(v)
	switch r.OutputKind {
	case learners.OutputDensity:
		u := ""
		if r.OutputUnit != "" {
			u = " (" + r.OutputUnit + ")"
		}
		return "Queries in the features' data units. Densities per unit of data volume" + u + ": the release on [0,1]^ℓ divided by the volume of the public box (the product of hi − lo over the features)."
	case learners.OutputRegression:
		u := ""
		if r.OutputUnit != "" {
			u = " (" + r.OutputUnit + ")"
		}
		return "Queries in the features' data units. Values in the label's units" + u + ", mapped back from [−1, 1] by the label's public bounds."
	}
	return "Queries in the features' data units. Scores and probabilities are unitless."
}

func viewerFmtOutput(f *synopsis.File) string {
	o := f.Output
	s := fmt.Sprintf("%s: %s Natural range [%s, %s].", o.NameAndKind(), viewerSentence(o.Meaning), viewerNum(o.Range[0]), viewerNum(o.Range[1]))
	if len(o.ClassLabels) == 2 {
		s += fmt.Sprintf(" Classes: %q (negative) and %q (positive).", o.ClassLabels[0], o.ClassLabels[1])
	}
	return s
}

// viewerSensitivity is the Details row of the sensitivity the noise is
// calibrated to: S(F), or for logistic regression's linear score and the
// SVM released with Laplace or Gaussian noise possibly the lattice bound
// L(k) ≤ S(F) (docs/sensitivity.md); only those cases say so.
func viewerSensitivity(f *synopsis.File) string {
	what := "S(F), replace-one neighbours, in the learner's units on [0,1]^ℓ"
	if f.LatticeSensitivityPossible() {
		what = "the bound the noise is calibrated to: S(F), or for this linear score (logistic, SVM) the lattice bound L(k) ≤ S(F); replace-one neighbours, in the learner's units on [0,1]^ℓ"
	}
	return viewerNum(f.Learner.Sensitivity) + " (" + what + ")"
}
