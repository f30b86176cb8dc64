#!/usr/bin/env bash
# mutate.sh: a mutation check of the privacy tests (issue 30).
#
# Each file scripts/mutations/*.sed introduces one plausible privacy bug:
# its first lines say which file it edits ("# file: path") and what the
# bug is ("# bug: ..."), the rest is a sed script. For each, this script
# copies the repository's tracked files (as they are in the working tree)
# to a scratch directory once, applies the mutation there, runs the tests
# of the packages that check privacy, restores the file, and prints a
# table: mutation → the top-level tests that failed, or NOT CAUGHT. A
# mutation that does not change its file, or does not build, is reported
# as such. The repository itself is never modified.
#
# Usage: scripts/mutate.sh [mutation-name-substring ...]
#   PKGS   packages to test (default: ./userdp ./audit ./noise/discrete ./accounting)
#   KEEP=1 keep the scratch directory
# Exit status: 1 if any mutation is NOT CAUGHT or did not apply.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
muts="$root/scripts/mutations"
pkgs=${PKGS:-./userdp ./audit ./noise/discrete ./accounting}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dpmc-mutate.XXXXXX")
if [[ ${KEEP:-} != 1 ]]; then
	trap 'rm -rf "$scratch"' EXIT
fi

# The tracked files as they are now, without .git: tests that need
# ../shared (not in the repository) skip, as in CI.
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | (cd "$scratch" && tar -xf -)

selected=()
for m in "$muts"/*.sed; do
	name=$(basename "$m" .sed)
	if (($# == 0)); then
		selected+=("$m")
		continue
	fi
	for want in "$@"; do
		if [[ $name == *"$want"* ]]; then
			selected+=("$m")
			break
		fi
	done
done

start=$(date +%s)
# The unmutated copy must pass, or the table means nothing.
if ! out=$(cd "$scratch" && go test $pkgs 2>&1); then
	echo "mutate.sh: the unmutated copy fails its tests:" >&2
	echo "$out" | grep -E '^(--- FAIL|FAIL|ok)' >&2
	exit 2
fi
echo "baseline passes ($(($(date +%s) - start)) s)" >&2
results=()
status=0
for m in "${selected[@]}"; do
	name=$(basename "$m" .sed)
	file=$(sed -n 's/^# file: //p' "$m" | head -1)
	bug=$(sed -n 's/^# bug *:\? *//p' "$m" | head -1)
	target="$scratch/$file"
	cp "$target" "$target.orig"
	sed -i -f "$m" "$target"
	t0=$(date +%s)
	if cmp -s "$target" "$target.orig"; then
		caught="MUTATION DID NOT APPLY"
		status=1
	else
		# No -count=1: go test's cache is keyed by the files' contents, so
		# a package the mutation cannot reach is not run again.
		out=$(cd "$scratch" && go test $pkgs 2>&1 || true)
		if grep -q -e '\[build failed\]' -e '\[setup failed\]' <<<"$out"; then
			caught="DOES NOT BUILD: $(grep -m1 -E '\.go:[0-9]+' <<<"$out" || true)"
			status=1
		else
			caught=$( (grep -E '^--- FAIL: ' <<<"$out" || true) | awk '{print $3}' | sort -u | paste -sd ' ' -)
			if [[ -z $caught ]]; then
				if grep -q -E '^(FAIL|panic)' <<<"$out"; then
					caught="a package failed without a test name: $(grep -m1 -E '^(FAIL|panic)' <<<"$out")"
				else
					caught="NOT CAUGHT"
					status=1
				fi
			fi
		fi
	fi
	mv "$target.orig" "$target"
	results+=("| $bug | $caught |")
	printf '%s (%ss): %s\n' "$name" "$(($(date +%s) - t0))" "$caught" >&2
done

echo
echo "| bug introduced | tests that failed |"
echo "|---|---|"
printf '%s\n' "${results[@]}"
echo
echo "packages: $pkgs; ${#selected[@]} mutations in $(($(date +%s) - start)) s"
exit $status
