# The combination matrix's odd rows (907 says what the matrix is and runs the even rows): the
# same covering array, split so each half keeps well inside a CLI test's time limit.
MATRIX_HALF=1
. "$TESTS/cli/907-e2e-combination-matrix.sh"
