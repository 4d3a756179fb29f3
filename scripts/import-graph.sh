#!/bin/sh
# import-graph.sh writes docs/architecture-imports.svg: the import graph of
# the module's production packages (go list; tests excluded), drawn with
# Graphviz (tred keeps only the edges not implied by others; dot draws).
# Run it after a change of shape (docs/architecture.md).
set -eu
cd "$(dirname "$0")/.."
mod=github.com/bernsteinrelease/bernstein
{
	echo 'digraph imports {'
	echo '  rankdir=LR; node [shape=box, fontname="Helvetica", fontsize=11]; edge [color="#777777"];'
	go list -tags migrated_fynedo -f '{{.ImportPath}} {{join .Imports " "}}' ./... |
		while read -r pkg imps; do
			p=${pkg#"$mod"}; p=${p#/}; [ -n "$p" ] || p="(root)"
			case "$p" in scripts/*|audit|internal/memprobe) continue ;; esac
			echo "  \"$p\";"
			for i in $imps; do
				case "$i" in "$mod"/*) echo "  \"$p\" -> \"${i#"$mod"/}\";" ;; esac
			done
		done
	echo '}'
} | tred | dot -Tsvg -o docs/architecture-imports.svg
echo "wrote docs/architecture-imports.svg"
