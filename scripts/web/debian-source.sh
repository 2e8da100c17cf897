#!/usr/bin/env bash
# Fetches one of Debian's source packages and unpacks it with Debian's patches applied, into a
# cache folder; prints the unpacked folder. A second call finds it there and only prints it.
#
#   scripts/web/debian-source.sh PACKAGE VERSION CACHE    e.g. imgui 1.86+ds-1 build-web/_deps
#
# The deb-src line is its own (a sources.list and lists folder in CACHE/apt), so the system's apt
# configuration is not touched, and no root is needed. DEBIAN_SOURCE_LINE replaces the line
# (default: bookworm main on deb.debian.org, signed by debian-archive-keyring). apt checks the
# files' hashes against the signed Release file; dpkg-source checks the tarballs against the .dsc.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: scripts/web/debian-source.sh PACKAGE VERSION CACHE" >&2
  exit 2
fi
package="$1" version="$2"
mkdir -p "$3"
cache="$(cd "$3" && pwd)"
work="$cache/$package-${version#*:}"  # without the epoch ("1:"), which is no part of a file name
unpacked="$work/src"
if [ -f "$work/.unpacked" ]; then
  echo "$unpacked"
  exit 0
fi
for tool in apt-get dpkg-source; do
  command -v "$tool" >/dev/null || { echo "debian-source: $tool is missing (scripts/install-deps.sh --web installs it)" >&2; exit 2; }
done
log="$work/fetch.log"
mkdir -p "$work/package" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
printf '%s\n' "${DEBIAN_SOURCE_LINE:-deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main}" \
  > "$cache/apt/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$cache/apt/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache" -o "APT::Sandbox::User=$(id -un)")
if ! { apt-get "${apt_opts[@]}" update && (cd "$work/package" && apt-get "${apt_opts[@]}" source --download-only "$package=$version"); } > "$log" 2>&1; then
  echo "debian-source: could not fetch the source package $package=$version from Debian's mirror; the end of $log:" >&2
  tail -n 15 "$log" | sed 's/^/  /' >&2
  exit 1
fi
rm -rf "$unpacked"
dsc="$(ls "$work/package/${package}_"*.dsc | head -n 1)"
dpkg-source -x "$dsc" "$unpacked" >> "$log" 2>&1 || { echo "debian-source: dpkg-source -x $dsc failed (see $log)" >&2; exit 1; }
touch "$work/.unpacked"
echo "$unpacked"
