# Each third-party library is included by one module (docs/conventions.md "Layout"): <microhttpd.h> only by
# httpd.c (serve-sim's server had its own libmicrohttpd glue beside it), <curl/curl.h> only by the
# client's private header, <sqlite3.h> only by the store's private header, <cJSON.h> only by json.c (14 files
# included it; json.h hides cJSON behind struct json, so the ownership of its trees and
# printed text is in one place), <openssl/...> only by sha256.c (SHA-256 through libcrypto's EVP).
. "$TESTS/cli/lib/lib.sh"
cd "$REPO/harness" || fail "no harness/"
only() {
    local header=$1 want=$2 got
    got=$(grep -rl --include='*.[ch]' "^#include <$header>" . | sed 's|^\./||' | sort | tr '\n' ' ')
    [ "$got" = "$want " ] || fail "<$header> is included by: $got(want: $want)"
}
only microhttpd.h base/httpd.c
only curl/curl.h client/client-int.h
only sqlite3.h store/store-int.h
only cJSON.h base/json.c
only 'openssl/[a-z]*\.h' base/sha256.c
echo ok
