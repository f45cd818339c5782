#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The test suite checks itself: no assertion in it that can never fail.
# And the layering of common/ (tests/lint/layers.sh).

# bats file_tags=check

load helpers

@test "lint: no negated command that cannot fail a test (bats files and helpers)" {
	run "$ROOT/tests/lint/lint-bats.sh" "$ROOT"/tests/integration/*.bats "$ROOT"/tests/integration/*.bash
	echo "$output"
	[ "$status" = 0 ]
	[ -z "$output" ]
}

@test "lint: it finds a dead '! cmd' in a test and in a helper, and accepts the forms that fail" {
	local f=$ROOT/tests/lint/sample.bats.in
	run "$ROOT/tests/lint/lint-bats.sh" "$f"
	echo "$output"
	[ "$status" = 1 ]
	# the helper's first line and the test's first one; not the last ones
	[ "$(echo "$output" | cut -d: -f2 | tr '\n' ' ')" = "3 12 " ]
}

@test "lint: refute fails when its command succeeds, passes when it fails" {
	run refute true
	[ "$status" = 1 ]
	run refute false
	[ "$status" = 0 ]
}

# tagged TAG: the tools (the word before the first ':' of a test's name)
# with a test tagged TAG, one per line.
tagged() {
	awk -v tag="$1" '
		/^# bats test_tags=/ {
			s = $0; sub(/^[^=]*=/, "", s); n = split(s, t, ",")
			hit = 0
			for (i = 1; i <= n; i++) { gsub(/[ \t]/, "", t[i]); if (t[i] == tag) hit = 1 }
			next
		}
		/^@test "/ { if (hit) { s = $0; sub(/^@test "/, "", s); sub(/:.*/, "", s); print s } hit = 0 }
	' "$ROOT"/tests/integration/*.bats | sort -u
}

@test "lint: every tool has its smoke test, every tool with a BPF side its tests on the kernel matrix" {
	local t missing=""
	for t in $(make -s -C "$ROOT" --no-print-directory print-tools); do
		tagged smoke | grep -qx "${t%-lite}" || missing="$missing $t(smoke)"
	done
	for t in $(make -s -C "$ROOT" --no-print-directory print-bpf-tools); do
		tagged vm | grep -qx "${t%-lite}" || missing="$missing $t(vm)"
	done
	[ -z "$missing" ] || { echo "no tagged test for:$missing" >&2; return 1; }
}

@test "lint: tests/tags.sh picks each tier's files: check files whole, smoke and vm by their tags, soak out of make test" {
	. "$ROOT/tests/tags.sh"
	cd "$ROOT"
	run tier_args check tests/integration/lint.bats
	[ "$status" = 0 ] && [ -z "$output" ]
	run tier_args check tests/integration/runqlat.bats
	[ "$status" = 1 ]
	[ "$(tier_args smoke tests/integration/runqlat.bats)" = "--filter-tags smoke" ]
	[ "$(tier_args vm tests/integration/strace.bats)" = "--filter-tags vm" ]
	run tier_args vm tests/integration/docs.bats
	[ "$status" = 1 ]
	[ "$(tier_args all tests/integration/runqlat.bats)" = "--filter-tags !soak" ]
	is_serial tests/integration/runqlat.bats
	run is_serial tests/integration/flamegraph.bats
	[ "$status" = 1 ]
}

@test "lint: no source includes libbpf's skel_internal.h (for generated light skeletons, its layout changes between versions)" {
	run grep -rnE '#[[:space:]]*include[[:space:]]*[<"](bpf/)?skel_internal\.h' \
		"$ROOT"/common "$ROOT"/tools "$ROOT"/bpf
	echo "$output"
	[ "$status" = 1 ]
}

@test "lint: common/ keeps its layering (tests/lint/layers.sh)" {
	run "$ROOT/tests/lint/layers.sh"
	echo "$output"
	[ "$status" = 0 ]
}

# Options register per module (opts__module()): a tool that does not offer
# --serve links neither the HTTP server nor the Prometheus writer.
@test "lint: a tool links the exporter (common/serve/ serve.o, prom.o) exactly when it offers --serve" {
	local t offers links bad=""
	for t in $(make -s -C "$ROOT" --no-print-directory print-tools); do
		offers=no links=""
		"$BIN/$t" --help | grep -q -- '--serve' && offers=yes
		for sym in serve__open prom__render; do
			nm "$BIN/$t" | awk -v s="$sym" '$2 == "T" && $3 == s { f = 1 } END { exit !f }' &&
				links="$links $sym"
		done
		echo "$t: offers --serve: $offers, links:${links:- nothing of the exporter}"
		case $offers$links in
		"yes serve__open prom__render" | no) ;;
		*) bad="$bad $t" ;;
		esac
	done
	[ -z "$bad" ] || { echo "offers --serve and links the exporter disagree:$bad" >&2; return 1; }
}

# A tree with common/ in layers, one allowed include of each kind and one
# of each forbidden kind.
layered_tree() {
	local t=$1
	mkdir -p "$t"/common/{abi,run,serve,out,load} "$t"/bpf "$t"/tools/strace
	touch "$t"/bpf/runqlat.bpf.c "$t"/tools/runqlat.c
	for h in bpf/runqlat.h common/abi/hist_abi.h common/serve/serve.h common/load/light.h \
		common/out/json.h common/run/loop.h tools/strace/decode.h; do
		echo "/* $h */" >"$t/$h"
	done
	printf '#include "hist_abi.h"\n#include "json.h"\n#include <stdio.h>\n#include "syscall_table.h"\n' >"$t/common/run/ok.c"
	printf '#include "loop.h"\n#include "serve.h"\n' >"$t/common/run/bad.c"
	printf '#include "json.h"\n#include "../load/light.h"\n' >"$t/common/out/bad.c"
	printf '  #  include "runqlat.h"\n#include "strace/decode.h"\n' >"$t/common/serve/bad.c"
}

@test "lint: layers.sh finds each forbidden include, passes the allowed ones, the known ones and a flat common/" {
	local t=$BATS_TEST_TMPDIR/tree
	layered_tree "$t"
	run "$ROOT/tests/lint/layers.sh" "$t"
	echo "$output"
	[ "$status" = 1 ]
	[ "$(echo "$output" | cut -d: -f1,2 | tr '\n' ' ')" = "common/out/bad.c:2 common/run/bad.c:2 common/serve/bad.c:1 common/serve/bad.c:2 " ]
	grep -q "common/out/ includes common/load/: ../load/light.h (common/load/light.h)" <<<"$output"
	grep -q "common/run/ includes common/serve/: serve.h (common/serve/serve.h)" <<<"$output"
	grep -q "a tool's header: runqlat.h (bpf/runqlat.h)" <<<"$output"
	grep -q "a tool's source: strace/decode.h (tools/strace/decode.h)" <<<"$output"
	# an offence listed in tests/lint/layers.allow is known, not failed
	mkdir -p "$t/tests/lint"
	printf '# known\ncommon/out/bad.c ../load/light.h  moves later\n' >"$t/tests/lint/layers.allow"
	run "$ROOT/tests/lint/layers.sh" "$t"
	[ "$status" = 1 ]
	grep -q "^common/out/bad.c:2: known (tests/lint/layers.allow): " <<<"$output"
	rm "$t"/common/run/bad.c "$t"/common/serve/bad.c
	run "$ROOT/tests/lint/layers.sh" "$t"
	[ "$status" = 0 ]
	rm "$t/tests/lint/layers.allow"
	# without the offences it passes
	rm "$t"/common/*/bad.c
	run "$ROOT/tests/lint/layers.sh" "$t"
	[ "$status" = 0 ]
	[ -z "$output" ]
	# the flat common/ of before the layers
	rm -r "$t"/common/*
	touch "$t"/common/tool.c
	run "$ROOT/tests/lint/layers.sh" "$t"
	[ "$status" = 0 ]
	[[ "$output" == *"flat"* ]]
}
