# deb-src.sh: sourced by the testsuite fetch scripts (tests/*-testsuite/fetch-testsuite.sh), which
# get their tests with `apt-get source` and so need a deb-src entry.
#
# ensure_deb_src: returns at once if apt already knows a source-package index; otherwise (as
# root) adds one that reuses the URIs and suites of the machine's Debian apt source (deb822
# .sources files first, then one-line sources.list entries) and runs apt-get update. Messages go
# to stderr, prefixed with the calling script's name. Returns 1 when it cannot add one.

has_deb_src() {
    apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q '^Sources$'
}

ensure_deb_src() {
    local me=${0##*/}
    has_deb_src && return 0
    [ "$(id -u)" = 0 ] || { echo "$me: no deb-src entry, and adding one needs root" >&2; return 1; }
    # make -j check runs both testsuites at once, and on a fresh machine both get here: one adds
    # the entry and runs apt-get update (which fails while another holds apt's lists lock), the
    # other waits for it and then finds the entry. The lock is on the folder the entry goes in.
    (
        flock 9
        has_deb_src || add_deb_src "$me"
    ) 9< /etc/apt/sources.list.d
}

add_deb_src() {
    local me=$1 out=/etc/apt/sources.list.d/libomp-lite-deb-src.sources uris= suites= f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        # The first stanza whose URIs point at Debian's main archive (not the security one).
        uris=$(awk 'tolower($1)=="uris:" && $2 ~ /debian\/?$/ && $2 !~ /security/ {
                        print $2; exit }' "$f")
        suites=$(awk -v u="$uris" 'tolower($1)=="uris:" {cur=$2}
                 tolower($1)=="suites:" && cur==u {$1=""; sub(/^ +/, ""); print; exit}' "$f")
        [ -n "$uris" ] && break
    done
    if [ -z "$uris" ] && [ -f /etc/apt/sources.list ]; then
        uris=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
        suites=$(awk -v u="$uris" '$1=="deb" && $2==u {print $3}' /etc/apt/sources.list |
            sort -u | tr '\n' ' ')
    fi
    [ -n "$uris" ] && [ -n "$suites" ] || {
        echo "$me: found no Debian apt source to copy" >&2; return 1; }
    echo "$me: adding $out (deb-src $uris $suites)" >&2
    cat > "$out" <<SRC
Types: deb-src
URIs: $uris
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -q >&2
}
