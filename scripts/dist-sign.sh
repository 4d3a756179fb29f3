#!/usr/bin/env bash
# scripts/dist-sign.sh KEY SUMS — signs a release's checksum file with the
# project's release key: `ssh-keygen -Y sign -n file` writes SUMS.sig (run by
# scripts/dist.sh when `make dist RELEASE_KEY=KEY` is given; scripts/dist-test.sh
# runs it with a throwaway key and verifies the result as a user would).
#
# KEY is the private key file, or its .pub when the private key is held by
# ssh-agent or a hardware token (ssh-keygen then asks the agent). A
# passphrase-protected key prompts on the terminal. docs/install.md ("The
# release key") says how the key is made, kept offline and published as an
# allowed_signers line; no key is part of the repository.
set -euo pipefail
key=${1:?usage: dist-sign.sh KEY SUMS}
sums=${2:?usage: dist-sign.sh KEY SUMS}
[ -r "$key" ] || { echo "dist-sign: cannot read the release key $key" >&2; exit 1; }
[ -s "$sums" ] || { echo "dist-sign: no checksums to sign in $sums" >&2; exit 1; }
rm -f "$sums.sig"
ssh-keygen -Y sign -f "$key" -n file "$sums"
echo "signed: $sums.sig (key $(ssh-keygen -l -f "$key" | cut -d' ' -f2))"
