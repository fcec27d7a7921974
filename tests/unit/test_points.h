#ifndef TEST_POINTS_H
#define TEST_POINTS_H
/*
 * Trials built as trial_results, handed to the statistics as the points they read (run/trial.h):
 * pts(slot, t, n) in slot 0 or 1 (two runs at once), each array kept until that slot's next
 * use; test_points_free() at the end of main.
 */
#include <stdlib.h>

#include "run/trial.h"

static struct trial_point *test_points_[2];

static inline const struct trial_point *pts(int slot, const struct trial_result *t, size_t n)
{
    free(test_points_[slot]);
    test_points_[slot] = trial_points_of(t, n);
    return test_points_[slot];
}

static inline void test_points_free(void)
{
    free(test_points_[0]);
    free(test_points_[1]);
}

#endif
