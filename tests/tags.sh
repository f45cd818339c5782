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
# variable tag among its tags (the awk function of has_tag and tier_copy).
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

# tier_copy TIER FILE: FILE with only the tests of TIER (and all that is
# not a test: helpers, setup, teardown), on stdout. The guests run these
# copies: bats reads each file twice, line by line in bash regexes
# (bats-preprocess: 0.37 ms a line here, about 50 times that under TCG),
# so strace.bats' 1,100 lines cost a guest 40 s before its four tests
# begin. A test is its  # bats test_tags=  line and the comments between
# it and its @test line, then the @test line down to the first line that
# is "}" alone (the suite's layout; tests/integration/lint.bats checks
# that a copy keeps exactly the tier's tests).
tier_copy() {
	awk -v tag="$1" "$TAGGED_AWK"'
		/^# bats file_tags=/ && tagged($0) { all = 1 }
		skip { if ($0 == "}") skip = 0; next }
		/^[ \t]*# bats test_tags=/ { held = held $0 "\n"; keep = tagged($0); next }
		held != "" && /^[ \t]*#/ { held = held $0 "\n"; next }
		/^[ \t]*@test / {
			if (all || keep) { printf "%s", held; print }
			else skip = 1
			held = ""; keep = 0
			next
		}
		{ printf "%s", held; held = ""; keep = 0; print }' "$2"
}

# tier_tree TIER DIR: DIR gets tier_copy's copy of each file of
# tests/integration that has tests of TIER, and links to the files they
# load or run (helpers, scripts). Tests find the tree through
# BPFLITE_TEST_ROOT (tests/integration/helpers.bash).
tier_tree() {
	local f
	mkdir -p "$2" || return 1
	for f in tests/integration/*; do
		case $f in
		*.bats) if tier_args "$1" "$f" >/dev/null; then tier_copy "$1" "$f" >"$2/${f##*/}" || return 1; fi ;;
		*) ln -sf "$PWD/$f" "$2/${f##*/}" || return 1 ;;
		esac
	done
}
