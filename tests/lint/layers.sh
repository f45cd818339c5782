#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layering of common/ (docs/DESIGN.md): what a layer may include.
#
#   - nothing in common/ includes a tool's own half: bpf/<tool>.h or
#     anything under tools/ (a tool depends on common/, never the reverse);
#   - common/run/ does not include common/serve/ (running a tool does not
#     depend on serving it);
#   - common/out/ does not include common/load/ (output formats know
#     nothing of how the programs were loaded).
#
# Each #include "X" of a file under common/ is resolved as the compiler
# would: the including file's folder first, then common/, each folder of
# common/, bpf/, tools/ and the top; the first file found is what it includes. A
# name that is not found (a generated header in build/, a system header)
# is not checked. While common/ is still one flat folder there are no
# layers to check: the script says so and passes.
#
# An offence listed in TREE/tests/lint/layers.allow ("FILE NAME reason",
# one a line) is reported as known and does not fail: a debt to pay, not a
# rule that changed.
#
#   tests/lint/layers.sh [TREE]	(default: this tree; exit 1 and one
#				 line per offence)
tree=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$tree" || exit 2
[ -d common ] || { echo "layers: no common/ in $tree" >&2; exit 2; }

layers=$(find common -mindepth 1 -maxdepth 1 -type d | sort)
if [ -z "$layers" ]; then
	echo "layers: common/ is flat, no layers to check yet"
	exit 0
fi

# the tools' own headers in bpf/: bpf/<tool>.h for each tool
tool_headers=" "
for h in bpf/*.h; do
	[ -f "$h" ] || continue
	t=$(basename "$h" .h)
	[ -f "bpf/$t.bpf.c" ] || [ -f "tools/$t.c" ] && tool_headers="$tool_headers$h "
done

# resolve FILE NAME: the path the compiler would open for #include "NAME"
resolve() {
	local from=$1 name=$2 d
	for d in "$(dirname "$from")" common $layers bpf tools .; do
		if [ -f "$d/$name" ]; then
			realpath -m --relative-to=. "$d/$name"
			return
		fi
	done
}

allow=$(grep -v '^#' tests/lint/layers.allow 2>/dev/null | awk 'NF >= 2 { print $1 " " $2 }')
bad=0
# offence FILE LINE NAME TEXT
offence() {
	if grep -qxF "$1 $3" <<<"$allow"; then
		echo "$1:$2: known (tests/lint/layers.allow): $4"
		return
	fi
	echo "$1:$2: $4"
	bad=1
}

while IFS= read -r f; do
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
		name=${BASH_REMATCH[1]}
		target=$(resolve "$f" "$name")
		[ -n "$target" ] || continue
		case $target in
		tools/*) offence "$f" "$n" "$name" "common/ includes a tool's source: $name ($target)" ;;
		bpf/*)
			[[ $tool_headers == *" $target "* ]] &&
				offence "$f" "$n" "$name" "common/ includes a tool's header: $name ($target)"
			;;
		esac
		case $f in
		common/run/*)
			[[ $target == common/serve/* ]] &&
				offence "$f" "$n" "$name" "common/run/ includes common/serve/: $name ($target)"
			;;
		common/out/*)
			[[ $target == common/load/* ]] &&
				offence "$f" "$n" "$name" "common/out/ includes common/load/: $name ($target)"
			;;
		esac
	done <"$f"
done < <(find common -type f \( -name '*.c' -o -name '*.h' \) | sort)
exit $bad
