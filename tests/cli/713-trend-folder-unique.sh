# Trend folders are unique per selection, as run folders are: tags "a b" and
# "a_b" used to share reports/trend-tag_a_b (the second plot overwrote the
# first); a plain tag keeps its readable folder.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run s1 --model m --tag "a b" --time 1764000000
make_run t.db --run s2 --model m --tag "a b" --time 1764086400
make_run t.db --run u1 --model m --tag a_b --time 1764000000
make_run t.db --run u2 --model m --tag a_b --time 1764086400
make_run t.db --run n1 --model m --tag nightly --time 1764000000
expect_code 0 "$DIPMAP" plot --tag "a b" --db t.db --format svg
expect_code 0 "$DIPMAP" plot --tag a_b --db t.db --format svg
expect_code 0 "$DIPMAP" plot --tag nightly --db t.db --format svg
[ -f reports/trend-tag_nightly/trend.svg ] || fail "plain tag folder: $(ls reports)"
[ -f reports/trend-tag_a_b/trend.svg ] || fail "safe tag folder: $(ls reports)"
n=$(ls -d reports/trend-tag_a_b* | wc -l)
[ "$n" = 2 ] || fail "tags 'a b' and a_b share a folder: $(ls reports)"
grep -q 'trend of tag a b' reports/trend-tag_a_b-*/trend.svg || fail "'a b' trend not in its own folder"
grep -q 'trend of tag a_b' reports/trend-tag_a_b/trend.svg || fail "a_b trend overwritten"
exit 0
