package ui

import "flag"

// updateGolden rewrites the viewer's golden files under testdata/.
var updateGolden = flag.Bool("update-viewer", false, "rewrite the viewer's golden files under testdata/")
