#!/bin/sh
# Assembles the container image's root file system in ROOT, from the Debian stage it runs in (the Dockerfile's first
# stage, with git, ca-certificates, tini and binutils installed): node (stripped of its symbol table), tini as PID 1,
# git for fetch and clone (its https helper included; no perl, no server, mail or web parts), dash as /bin/sh (git
# runs local clones and `!` credential helpers through it), the CA bundle, and exactly the libraries these load.
# No npm, no apt, no dpkg. Each Debian package whose files are copied keeps its dpkg status entry, as distroless
# images do (/var/lib/dpkg/status.d/PACKAGE and PACKAGE.md5sums), so container scanners still see the OS packages.
#
#   sh scripts/image-rootfs.sh ROOT
set -eu
ROOT=$1
mkdir -p "$ROOT"

# The merged /usr layout of the stage (/bin -> usr/bin, /lib -> usr/lib, ...), so that paths such as the dynamic
# loader's /lib64/ld-linux-x86-64.so.2 resolve the same way.
for dir in bin sbin lib lib64; do
  if [ -L "/$dir" ]; then ln -s "$(readlink "/$dir")" "$ROOT/$dir"; fi
done

# copy PATH...: each path under its canonical folder (so that it never lands under ROOT/lib, a symbolic link), a
# symbolic link with what it points to; every copied path is listed in ROOT.files for the ownership pass below.
copy() {
  for path in "$@"; do
    dir=$(readlink -f "$(dirname "$path")")
    mkdir -p "$ROOT$dir"
    cp -a "$dir/$(basename "$path")" "$ROOT$dir/"
    echo "$dir/$(basename "$path")" >> "$ROOT.files"
    if [ -L "$path" ]; then copy "$(readlink -f "$path")"; fi
  done
}

# git: the command and its helpers, without what needs perl or serves, mails or browses.
GIT_CORE=/usr/lib/git-core
DROP=' git-add--interactive git-archimport git-cvsexportcommit git-cvsimport git-cvsserver git-daemon git-http-backend git-http-push git-imap-send git-instaweb git-send-email git-shell git-svn git-web--browse mergetools scalar '
mkdir -p "$ROOT$GIT_CORE"
for path in "$GIT_CORE"/*; do
  case "$DROP" in *" $(basename "$path") "*) continue ;; esac
  copy "$path"
done
copy /usr/bin/git /usr/share/git-core/templates

copy /usr/local/bin/node /usr/bin/tini /usr/bin/dash /bin/sh /etc/ssl/certs/ca-certificates.crt \
  /etc/os-release /usr/lib/os-release /etc/debian_version /etc/nsswitch.conf
strip "$ROOT/usr/local/bin/node"

# The libraries the programs load (ldd gives the whole closure), and the dynamic loader.
for program in "$ROOT/usr/local/bin/node" "$ROOT/usr/bin/tini" "$ROOT/usr/bin/dash" "$ROOT/usr/bin/git" "$ROOT$GIT_CORE"/*; do
  [ -f "$program" ] && [ ! -L "$program" ] && [ "$(head -c 4 "$program" | tail -c 3)" = ELF ] || continue
  ldd "$program" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
done | sort -u > "$ROOT.libs"
while read -r lib; do copy "$lib"; done < "$ROOT.libs"

# Users: root, node (1000, the image's user) and nobody. A home for git's lookups of the user's config.
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'node:x:1000:1000::/home/node:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' > "$ROOT/etc/passwd"
printf '%s\n' 'root:x:0:' 'node:x:1000:' 'nogroup:x:65534:' > "$ROOT/etc/group"
mkdir -p "$ROOT/home/node" "$ROOT/root" "$ROOT/tmp"
chown 1000:1000 "$ROOT/home/node"
chmod 0700 "$ROOT/root"
chmod 1777 "$ROOT/tmp"

# dpkg status entries: the package owning each copied file (dpkg records /lib paths as packaged, before merged /usr),
# and ca-certificates, whose bundle update-ca-certificates writes (no package owns the file itself).
status="$ROOT/var/lib/dpkg/status.d"
mkdir -p "$status"
while read -r path; do
  dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "${path#/usr}" 2>/dev/null || true
done < "$ROOT.files" | grep -v '^diversion by' | sed 's/: .*//; s/, /\n/g' | { cat; echo ca-certificates; } | sort -u | while read -r package; do
  name=${package%%:*}
  dpkg-query -s "$package" > "$status/$name"
  for sums in "/var/lib/dpkg/info/$package.md5sums" "/var/lib/dpkg/info/$name.md5sums"; do
    if [ -f "$sums" ]; then cp "$sums" "$status/$name.md5sums"; break; fi
  done
done
rm -f "$ROOT.files" "$ROOT.libs"
