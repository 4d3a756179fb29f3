// Package release is the curator's release pipeline: from a dataset and a
// request (Request: columns, public bounds, fill rules, learner, privacy
// parameters) to a signed synopsis, with the budget charged first.
//
// Contract:
//
//   - Prepare validates the request once, where it enters (errors are
//     *RequestError naming the field and rule), maps the data to [0,1]^ℓ by
//     the public bounds, fits the learner, resolves k (mechanism.ResolveK)
//     and evaluates F_D on the lattice (Algorithm 1, lines 1–2 of Aldà &
//     Rubinstein 2017). Nothing is written and no budget is spent.
//   - (*Prepared).Release reserves the budget in the ledger
//     (ledger.ReserveByIdentity, charged to the dataset the records belong
//     to) and only then adds crypto-seeded noise and writes the synopsis;
//     it never writes over a protected file — the dataset, the ledger or its
//     lock, a key, an allowed_signers file — by name, symbolic link or hard
//     link (CheckOutputPath).
//   - Nothing published depends on the private records except through the
//     mechanism: bounds are declared, or estimated privately
//     (EstimatePrivateBounds, charged), or taken from the data only with the
//     curator's recorded acknowledgement; missing values are replaced by
//     public fill rules; n is public; a single release's δ must be below
//     1/n (CheckDeltaForN).
//   - The private choice of settings (ChooseSettings, choose.go) spends its
//     own ε on a held-out split chosen with crypto-seeded randomness
//     (choose_seed.go) and records it in the ledger (docs/validation.md);
//     with ChooseOptions.Parameters it also chooses the learner's
//     parameters among public multiples of the request's (TuningGrid,
//     choose_params.go), and with ChooseOptions.Mechanisms the mechanism:
//     the Bernstein release at the other noise kinds δ allows and the
//     published peers peerRule admits, each scored at its own noise within
//     the same ε (choose_peers.go); ApplyCandidate turns the chosen
//     candidate into the release's request and synopsis kind.
//   - Parameters given no value take their data-independent defaults from
//     n, ℓ and ε (learners.Spec.PublicDefaults, in Prepare; not for
//     aggregates); the resolved values are what the ledger and the
//     synopsis record.
//   - A release from an aggregate table (Request.Aggregates, aggregates.go;
//     docs/aggregates.md) checks the same public settings, reads the table
//     the learner's aggregate query returned (aggregate.ReadResultCSV,
//     errors with file, line and column), fits the oracle from it with the
//     declared n (aggregate.Result.Fit) and then follows the same steps;
//     it is charged to the ledger dataset the curator declares
//     (Aggregates.Dataset: a known hash or a name; the ledger cannot
//     recognise records it never reads) and the synopsis records its
//     source (dialect, bins, the query's SHA-256).
//   - The preview's stand-in data (UniformStandIn) depends only on public
//     values (n, columns, bounds, a seed), never on the records.
//
// Package release imports project/aggregate, project/ledger, project/dataset,
// project/synopsis, project/keys, project/fileio, learners and mechanism.
package release
