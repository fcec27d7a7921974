/*
 * Version and build commit, filled in by the Makefile (-DDIPMAP_VERSION from git describe
 * or the release tarball's .tarball-version, -DDIPMAP_COMMIT, -DDIPMAP_CFLAGS) and recorded
 * in every run so a result can be traced to the code that made it.
 */
#include "base/version.h"

#include "base/banned.h"

#ifndef DIPMAP_VERSION
#define DIPMAP_VERSION "0.0.0"
#endif
#ifndef DIPMAP_COMMIT
#define DIPMAP_COMMIT "unknown"
#endif
#ifndef DIPMAP_CFLAGS
#define DIPMAP_CFLAGS "unknown"
#endif

const char dipmap_version[] = DIPMAP_VERSION;
const char dipmap_commit[] = DIPMAP_COMMIT;
#if defined(__clang__)
const char dipmap_compiler[] = "clang " __clang_version__;
#elif defined(__GNUC__)
const char dipmap_compiler[] = "gcc " __VERSION__;
#else
const char dipmap_compiler[] = "unknown compiler";
#endif
const char dipmap_cflags[] = DIPMAP_CFLAGS;
