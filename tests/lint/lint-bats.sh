#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reject negated commands that can never fail a test.
#
# bats runs a test under errexit, and bash's errexit ignores a pipeline
# negated with '!': a line '! grep -q x file' in the middle of a test (or
# of a helper) checks nothing. Only the last command of a test (or of a
# function: its return value) makes the status count. Use 'run !',
# '[ ... ]', '! cmd || false' or refute instead.
#
#   tests/lint/lint-bats.sh FILE...	(exit 1 and one line per offence)

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }

awk '
function flush(   i) {
	for (i = 1; i <= nb; i++)
		if (bang[i] != last) {
			printf "%s:%d: a negated command here cannot fail the test: %s\n", FILENAME, bang[i], text[i]
			bad = 1
		}
	nb = 0
}
FNR == 1 { inblock = 0; cont = 0 }
# a test, or a function at the left margin
/^@test / || /^[A-Za-z_][A-Za-z0-9_]*\(\)[ \t]*\{?[ \t]*$/ {
	inblock = 1; nb = 0; last = 0; cont = 0
	next
}
inblock && /^\}[ \t]*$/ { flush(); inblock = 0; next }
inblock {
	line = $0
	if (cont) {		# continuation of the previous logical line
		cont = line ~ /\\$/
		next
	}
	cont = line ~ /\\$/
	if (line ~ /^[ \t]*(#|$)/)
		next
	last = FNR
	if (line ~ /^[ \t]*![ \t]/ && line !~ /\|\|[ \t]*(false|return|exit)/) {
		bang[++nb] = FNR
		text[nb] = line
		sub(/^[ \t]+/, "", text[nb])
	}
}
END { exit bad }
' "$@"
