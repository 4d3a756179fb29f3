package viewer

import "flag"

// viewerUpdateGolden rewrites the viewer's golden files under testdata/.
var viewerUpdateGolden = flag.Bool("update-viewer", false, "rewrite the viewer's golden files under testdata/")
