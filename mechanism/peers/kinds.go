package peers

// The synopsis kinds of the peers a release can publish (issue 19 item 2;
// docs/synopsis-format.md, "Synopsis kinds"): one home for the names that
// project/synopsis writes and study's simulated peers carry (study.Peer.Kind).
const (
	KindGP                 = "hall-gp"
	KindTrig               = "wang-trig"
	KindOutputPerturbation = "output-perturbation"
)
