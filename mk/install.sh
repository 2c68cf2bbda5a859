#!/bin/sh
# make install and make uninstall, from the stage that make built (every file this tree installs,
# below STAGE at its installed path).
#   mk/install.sh install|uninstall STAGE DESTDIR MANIFEST
# install: checks that every directory can be written, and stops with one line naming the first
# that cannot, before anything is copied; makes the directories that are missing (those that exist
# keep their modes and owners) and copies each file (an existing one is replaced, never written
# through); removes what MANIFEST, an earlier install's list, names and this one no longer ships;
# writes MANIFEST (where it is not empty). uninstall: removes what the stage or MANIFEST names,
# then the directories an install created, where they are empty.
# The manifest: one installed path a line; a directory the install created ends with "/".
set -u
what=$1 stage=$2 dest=$3 manifest=$4
die() { echo "libpmu: $*" >&2; exit 1; }
[ -d "$stage" ] || die "no stage at $stage: run make install, not this script"
tmp=$stage.lists
rm -rf "$tmp" && mkdir "$tmp" || die "cannot make $tmp"
trap 'rm -rf "$tmp"' EXIT
(cd "$stage" && find . ! -type d | sed 's|^\.||' | sort) > "$tmp/files"
(cd "$stage" && find . -mindepth 1 -type d | sed 's|^\.||' | sort) > "$tmp/dirs"
old=
[ -n "$manifest" ] && [ -f "$dest$manifest" ] && [ ! -L "$dest$manifest" ] && old=$dest$manifest
[ -n "$old" ] && cp "$old" "$tmp/old" || : > "$tmp/old"

# rmdirs LIST: each directory of LIST (deepest first) that is empty, removed.
rmdirs() { sort -r "$1" | while IFS= read -r d; do rmdir "$dest$d" 2>/dev/null; done; }

if [ "$what" = uninstall ]; then
	{ cat "$tmp/files"; grep -v '/$' "$tmp/old"; [ -z "$old" ] || echo "$manifest"; } | sort -u |
		while IFS= read -r f; do rm -f "$dest$f"; done
	grep '/$' "$tmp/old" | sed 's|/$||' > "$tmp/created"
	[ -z "$manifest" ] || dirname "$manifest" >> "$tmp/created"
	rmdirs "$tmp/created"
	exit 0
fi

# Writable: the directory of each file exists and can be written, or its nearest existing parent can.
sed 's|/[^/]*$||' "$tmp/files" | sort -u | while IFS= read -r d; do
	p=$dest$d
	while [ ! -e "$p" ] && [ ! -L "$p" ]; do p=$(dirname "$p"); done
	[ -d "$p" ] || die "cannot install into $dest$d: $p is not a directory"
	[ -w "$p" ] || die "cannot install into $dest$d: $p is not writable (choose another PREFIX, or run as its owner)"
done || exit 1
while IFS= read -r d; do [ -e "$dest$d" ] || echo "$d/"; done < "$tmp/dirs" > "$tmp/new-dirs"
[ -z "$manifest" ] || [ -w "$dest$manifest" ] || [ ! -e "$dest$manifest" ] ||
	die "cannot write the install's list $dest$manifest: it is not writable"

# The directories that are not there yet, parents first; those that are keep their modes and owners.
[ -z "$dest" ] || mkdir -p "$dest" || die "cannot make $dest"
while IFS= read -r d; do
	d=${d%/}
	mkdir -m 755 "$dest$d" || die "cannot make $dest$d (the message above says why)"
done < "$tmp/new-dirs"
# Each file replaced, never written through, with the stage's mode whatever the umask.
while IFS= read -r f; do
	cp -P --preserve=mode --remove-destination "$stage$f" "$dest$f" || die "cannot copy $dest$f"
done < "$tmp/files"
# What an earlier install shipped and this one does not.
grep -v '/$' "$tmp/old" | sort | comm -23 - "$tmp/files" | while IFS= read -r f; do
	[ -d "$dest$f" ] && [ ! -L "$dest$f" ] || rm -f "$dest$f"
done
if [ -n "$manifest" ]; then
	mkdir -p "$(dirname "$dest$manifest")" || die "cannot make the directory of $dest$manifest"
	rm -f "$dest$manifest"
	{ cat "$tmp/files"; grep '/$' "$tmp/old"; cat "$tmp/new-dirs"; } | sort -u > "$dest$manifest" ||
		die "cannot write $dest$manifest"
fi
exit 0
