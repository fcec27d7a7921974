# The Containerfile builds an image (make image, from the release tarball) that runs dipmap as
# a non-root user with its data: inside it `dipmap --version` names the release and `dipmap
# demo` runs on the installed data, and `dipmap help --man` prints the manual; the test prints
# the image's size. No image registry is reachable on the test machines, so the
# Debian 12 base is made locally from the Debian archive (mmdebstrap, minbase) and kept as
# localhost/dipmap-base:bookworm for later runs (DIPMAP_BASE_IMAGE names another). Built and
# run with buildah's chroot isolation (podman run cannot start containers on these machines:
# its runtime cannot set rlimits or use the hybrid cgroups). Skipped with the reason where
# buildah or mmdebstrap are missing; DIPMAP_REQUIRE_CONTAINER=1 (CI) fails instead.
. "$TESTS/cli/lib/lib.sh"
for t in buildah git make; do
    command -v "$t" >/dev/null ||
        require_or_skip DIPMAP_REQUIRE_CONTAINER "$t is not installed (apt-get install buildah)"
done
base=${DIPMAP_BASE_IMAGE:-localhost/dipmap-base:bookworm}
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
    command -v mmdebstrap >/dev/null ||
        require_or_skip DIPMAP_REQUIRE_CONTAINER "mmdebstrap is not installed (apt-get install mmdebstrap) to make the base image $base"
    mmdebstrap --variant=minbase --format=tar bookworm base.tar >mmdebstrap.log 2>&1 ||
        { tail -n 20 mmdebstrap.log >&2; fail "mmdebstrap (is the Debian archive reachable?)"; }
    ctr=$(buildah from scratch) && buildah add "$ctr" base.tar / >/dev/null &&
        buildah commit -q "$ctr" "$base" >/dev/null && buildah rm "$ctr" >/dev/null || fail "importing base.tar as $base"
    rm -f base.tar
fi
# a clean clone of the committed tree, so the test never writes into the caller's checkout
git clone -q "$REPO" src || fail "git clone"
release=$(git -C src describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//')
release=${release:-$(sed -n 's/^VERSION := //p' src/Makefile)-dev}
image=localhost/dipmap-test-$$:latest
cleanup() {
    [ -n "${ctr:-}" ] && buildah rm "$ctr" >/dev/null 2>&1
    buildah rmi "$image" >/dev/null 2>&1
    return 0
}
trap cleanup EXIT
make -C src image BUILD=build-image BASE="$base" IMAGE="$image" >image.log 2>&1 ||
    { tail -n 40 image.log >&2; fail "make image"; }
# the image's configuration: non-root user, dipmap as the entry point
user=$(buildah inspect --type image --format '{{.OCIv1.Config.User}}' "$image")
[ "$user" = 10001:10001 ] || fail "image user '$user', want 10001:10001"
buildah inspect --type image --format '{{.OCIv1.Config.Entrypoint}}' "$image" | grep -q dipmap ||
    fail "entry point: $(buildah inspect --type image --format '{{.OCIv1.Config.Entrypoint}}' "$image")"
ctr=$(buildah from "$image") || fail "buildah from $image"
brun() { buildah run --isolation chroot --user 10001:10001 "$ctr" -- "$@"; }
brun dipmap --version >version.txt 2>&1 || { cat version.txt >&2; fail "dipmap --version in the image"; }
head -n 1 version.txt | grep -q "^dipmap $release (commit " || fail "version in the image: $(head -n 1 version.txt)"
[ "$(brun id -u)" = 10001 ] || fail "not run as uid 10001"
# the demo on the installed data, from the user's home folder
brun sh -c 'cd /home/dipmap && dipmap demo --out demo --lengths 2k' >demo.log 2>&1 ||
    { tail -n 30 demo.log >&2; fail "dipmap demo in the image"; }
assert_contains demo.log "verdict (candidate vs baseline)"
brun sh -c 'ls /home/dipmap/demo/*-vs-base/compare.json' >/dev/null 2>&1 || fail "the demo wrote no comparison"
# gnuplot (recommended by the package) made the plots
brun sh -c 'ls /home/dipmap/demo/*/*.svg /home/dipmap/demo/*/*.png 2>/dev/null | head -n 1' | grep -q . ||
    fail "no plot in the demo's reports"
# the manual is in the binary (the image, like Debian's slim images, ships no man-db): help --man
brun dipmap help --man run >man.txt 2>&1 || { cat man.txt >&2; fail "dipmap help --man run in the image"; }
grep -q '^\.TH ' man.txt || fail "help --man gave no man page: $(head -n 3 man.txt)"
# its size, for README "Container image" (measured, not asserted)
echo "measured: image size $(buildah images --format '{{.Size}}' "$image" | head -n 1) ($image)"
exit 0
