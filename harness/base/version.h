#ifndef VERSION_H
#define VERSION_H

/* The release: "0.1.0" from a tag v0.1.0 or a release tarball, "0.1.0-3-gabc1234" after it. */
extern const char dipmap_version[];
/* The git commit the binary was built from ("unknown" outside a checkout). */
extern const char dipmap_commit[];
/* The compiler and its version, e.g. "gcc 12.2.0" (dipmap --version). */
extern const char dipmap_compiler[];
/* The compile flags that shape the code (optimisation, sanitizers, CFLAGS). */
extern const char dipmap_cflags[];

#endif
