/*
 * Version and build commit, filled in by the Makefile (-DDIPMAP_COMMIT) and
 * recorded in every run so a result can be traced to the code that made it.
 */
#include "base/version.h"

#include "base/banned.h"

#ifndef DIPMAP_VERSION
#define DIPMAP_VERSION "0.0.0"
#endif
#ifndef DIPMAP_COMMIT
#define DIPMAP_COMMIT "unknown"
#endif

const char dipmap_version[] = DIPMAP_VERSION;
const char dipmap_commit[] = DIPMAP_COMMIT;
