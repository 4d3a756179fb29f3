package viewer

import (
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// viewerMechanismRows are the details rows that describe how the release
// was made: for the Bernstein polynomial its noise, cover size k and order
// h; for a peer kind (hall-gp, wang-trig, output-perturbation) the
// mechanism, its public noise and what its values are
// (synopsis.File.DescribeMechanism, DescribeNoise).
func viewerMechanismRows(f *synopsis.File) []viewerDetailRow {
	m := f.Mechanism
	if f.IsBernstein() {
		return []viewerDetailRow{
			{Label: "Noise", Value: viewerFmtNoise(m)},
			{Label: "Cover size k", Value: viewerFmtK(m.K)},
			{Label: "Bernstein order h", Value: fmt.Sprint(m.H)},
		}
	}
	return []viewerDetailRow{
		{Label: "Mechanism", Value: f.DescribeMechanism()},
		{Label: "Noise", Value: f.DescribeNoise()},
		{Label: "Released values", Value: fmt.Sprintf("%d %s", len(f.Values), f.DescribeValues())},
	}
}
