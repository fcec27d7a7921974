#ifndef VERSION_H
#define VERSION_H

/* The release version, e.g. "0.1.0". */
extern const char dipmap_version[];
/* The git commit the binary was built from ("unknown" outside a checkout). */
extern const char dipmap_commit[];

#endif
