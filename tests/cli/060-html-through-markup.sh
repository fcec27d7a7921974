# HTML only through the document model (docs/conventions.md "Layout"): under harness/report/ only
# report_markup.c writes a tag; every other file builds its pages with struct markup's calls
# (report_open, report_cell, report_element, ...), which escape every value from the store, a
# dataset or a model answer. About 130 raw writes ("<td class=...", "<tr><td>", "<details>...")
# once bypassed that escaping in view.c, report_questions.c, report.c, report_compare.c and
# report_flips.c. A string literal that opens or closes an HTML element outside report_markup.c
# fails; view.c may search a finished page for "<body>" and "</style>" (strstr, strlen), and
# compare's JUnit XML is not HTML.
. "$TESTS/cli/lib/lib.sh"
cd "$REPO/harness/report" || fail "no harness/report/"
tags='td|tr|th|table|thead|tbody|p|div|span|a|details|summary|ul|ol|li|dl|dt|dd|pre|code|h[1-6]'
tags="$tags|figure|figcaption|footer|nav|form|select|option|label|button|script|style|svg"
tags="$tags|html|head|body|meta|title|strong|b|i|em|br|img|link|!DOCTYPE"
hits=$(grep -nE "\"([^\"\\\\]|\\\\.)*</?($tags)[ >\"\\\\]" ./*.c | grep -v '^\./report_markup\.c:' |
    grep -vE 'strstr\(|strlen\(' || true)
[ -z "$hits" ] || fail "raw HTML tags outside report_markup.c (write them through struct markup):
$hits"
# the rule in the brief's words: no table tags at all
hits=$(grep -nE '"[^"]*<(td|tr|th|table)[ >"]' ./*.c | grep -v '^\./report_markup\.c:' || true)
[ -z "$hits" ] || fail "raw table tags outside report_markup.c:
$hits"
echo ok
