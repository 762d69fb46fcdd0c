#!/usr/bin/env bash
# Fails when git tracks a build output: any ELF file, or any other binary
# file (a NUL byte in its first 8 KiB) over 1 MiB, outside panel/dist (the
# panel's built assets, committed on purpose). A 13.9 MB test binary was
# once committed at the root; build outputs belong in bin/ (ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r -d '' f; do
	case "$f" in panel/dist/*) continue ;; esac
	[ -f "$f" ] || continue
	if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		echo "[binaries] $f is an ELF executable: remove it (git rm --cached) and build into bin/" >&2
		bad=1
	elif [ "$(stat -c %s "$f")" -gt 1048576 ] && head -c 8192 "$f" | grep -qaP '\x00'; then
		echo "[binaries] $f is a binary file over 1 MiB: keep it out of the repository" >&2
		bad=1
	fi
done < <(git ls-files -z)
[ $bad -eq 0 ] && echo "[binaries] no build output is tracked"
exit $bad
