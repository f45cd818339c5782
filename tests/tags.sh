# SPDX-License-Identifier: GPL-2.0
# Which bats files take part in a tier (sourced by tests/run.sh and by
# tests/vm/guest.sh). A test belongs to a tier by its bats tags, the line
#   # bats test_tags=smoke, vm
# above it, or the file's  # bats file_tags=check  line for all of its
# tests (bats >= 1.8 reads them: --filter-tags). The tags:
#   check  no root, no workload: make check runs the whole file
#   smoke  make smoke: one exact-count test per tool on the default path,
#          the --btf load of every tool, privilege handling
#   vm     the kernel matrix: what depends on the kernel, once per attach path
#   soak   make soak only: long churn, ring memory, 10k stacks
# A file with the line  # bpflite: serial  (and its reason) does not share
# the machine with another test file: tests/run.sh runs it alone.

# tagged(LINE): a "# bats file_tags=" or "test_tags=" LINE names the awk
# variable tag among its tags (the awk function of has_tag).
TAGGED_AWK='
	function tagged(s,   t, n, i) {
		sub(/^[^=]*=/, "", s)
		n = split(s, t, ",")
		for (i = 1; i <= n; i++) {
			gsub(/^[ \t]+|[ \t]+$/, "", t[i])
			if (t[i] == tag)
				return 1
		}
		return 0
	}'

# has_tag FILE TAG: some test of FILE, or the file itself, carries TAG.
has_tag() {
	awk -v tag="$2" "$TAGGED_AWK"'
		/^[ \t]*# bats (file|test)_tags=/ && tagged($0) { found = 1 }
		END { exit !found }' "$1"
}

# has_file_tag FILE TAG: the file as a whole carries TAG.
has_file_tag() {
	grep -Eq "^# bats file_tags=(.*,)?[ ]*$2[ ]*(,.*)?$" "$1"
}

# is_serial FILE: the file must have the machine to itself.
is_serial() {
	grep -q '^# bpflite: serial' "$1"
}

# tier_args TIER FILE: the bats options that pick FILE's tests of TIER;
# status 1 when FILE has none.
tier_args() {
	case $1 in
	check) has_file_tag "$2" check || return 1 ;;
	smoke)
		has_file_tag "$2" check && return 0
		has_tag "$2" smoke || return 1
		echo "--filter-tags smoke"
		;;
	all) echo "--filter-tags !soak" ;;
	vm)
		has_tag "$2" vm || return 1
		echo "--filter-tags vm"
		;;
	soak)
		has_tag "$2" soak || return 1
		echo "--filter-tags soak"
		;;
	*) return 1 ;;
	esac
}
