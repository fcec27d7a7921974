#ifndef BANNED_H
#define BANNED_H

/*
 * Functions we never call (git's banned.h): unbounded copies, formatting
 * without a size, unchecked number parsing, and anything that runs a shell.
 * Every .c file includes it after all other headers (`make check-banned`
 * verifies this), so the system headers' own declarations are untouched.
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atof
#define atof(x) BANNED(atof)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#endif
