#ifndef REUSE_H
#define REUSE_H

#include <stddef.h>

#include "base/sha256.h"

struct store;
struct trial_result;

/*
 * Pay once (`run --reuse DB_OR_RUN`): stored answers indexed by the sha256
 * of the exact request body that produced them (client_request_sha256()).
 * A trial whose request is byte-identical (model, rendered prompt, every
 * sampling parameter, max tokens, reasoning effort, extra body) takes the
 * stored answer instead of being sent; anything else differs in the body,
 * so nothing is ever reused across models or parameters.
 *
 * Only answers are reused: trials that ended correct, wrong, empty or
 * starved and carry a request hash (runs made before schema 3 have none), from
 * runs sampled at temperature 0: a sampled answer is one draw, and freezing it
 * would make every comparison against it conditional on that draw, so those
 * requests are sent again (reuse.c says so on stderr). Nor a request that
 * stored runs answered otherwise: the body names the model only, so two
 * answers of the same bytes at temperature 0 come from two servers (or models)
 * under one name, and the request is sent again (with a warning naming both).
 */
struct reuse_index;

/*
 * Load from `st`: every run's trials (run == NULL) or one run's. label names
 * the source in each reused trial ("base.db" -> "base.db:RUN"). Returns a
 * new index (possibly empty), or NULL after an error (printed). *n_out (when
 * non-NULL) is the number of answers indexed.
 */
struct reuse_index *reuse_index_load(struct store *st, const char *run, const char *label,
                                     size_t *n_out);
/* The stored trial answered by a byte-identical request, or NULL; *source is "LABEL:RUN". */
const struct trial_result *reuse_find(const struct reuse_index *ix,
                                      const char hex[SHA256_HEX_LEN + 1], const char **source);
void reuse_index_free(struct reuse_index *ix);

#endif
